// Calls the calculator's three components: the router worker's add, the
// containers' mul (with progressive results) and div (and its error).
// Exits 0 only when every result is right.

var autobahn = require("autobahn");

var addr = process.argv[2];
var failed = false;

function fail(msg) {
    console.error("client.js: FAILED: " + msg);
    failed = true;
    process.exit(1);
}

function equal(got, want, what) {
    if (JSON.stringify(got) !== JSON.stringify(want)) {
        fail(what + ": got " + JSON.stringify(got) + ", want " + JSON.stringify(want));
    }
}

// call retries while the procedure is not registered yet: the node's
// components join as it starts.
function call(session, procedure, args, options, tries) {
    tries = tries || 0;
    return session.call(procedure, args, {}, options).catch(function (err) {
        if (err.error === "wamp.error.no_such_procedure" && tries < 400) {
            return new Promise(function (resolve) { setTimeout(resolve, 50); })
                .then(function () { return call(session, procedure, args, options, tries + 1); });
        }
        throw err;
    });
}

setTimeout(function () { fail("timed out"); }, 40000).unref();

var connection = new autobahn.Connection({
    realm: "realm1",
    transports: [{ type: "websocket", url: "ws://" + addr + "/ws" }],
    max_retries: 0
});

connection.onopen = async function (session) {
    try {
        equal(await call(session, "com.calc.add", [1, 2, 3]), 6, "add(1, 2, 3)");
        equal(await call(session, "com.calc.add.role", []), "anonymous", "the router component's role");
        equal(await call(session, "com.calc.mul", [7]), 7, "mul(7)");
        var progress = [];
        var product = await session.call("com.calc.mul", [2, 3, 4], {}, { receive_progress: true })
            .then(null, null, function (p) { progress.push(p); });
        equal(product, 24, "mul(2, 3, 4)");
        equal(progress, [2, 6, 24], "the progressive results of mul(2, 3, 4)");
        equal(await call(session, "com.calc.div", [7, 2]), 3.5, "div(7, 2)");
        try {
            await call(session, "com.calc.div", [1, 0]);
            fail("div(1, 0) succeeded");
        } catch (err) {
            equal(err.error, "com.calc.division_by_zero", "the error of div(1, 0)");
        }
        connection.close();
    } catch (err) {
        fail(err.stack || JSON.stringify(err));
    }
};

connection.onclose = function (reason, details) {
    if (!failed && reason !== "closed") {
        fail("connection " + reason + " " + JSON.stringify(details));
    }
};

connection.open();
