// The Node.js backend of the hello node, a guest worker: it joins the
// router at the URL of its first argument (a Unix socket of the node) and
// adds, counts and says hello.

var autobahn = require("autobahn");
var fs = require("fs");

var offset = parseInt(process.env.HELLO_OFFSET || "0", 10);

// the backend's version, read at start: the node restarts this guest when
// a file of its directory changes (watch)
var version = fs.readFileSync("version.txt", "utf8").trim();

var connection = new autobahn.Connection({
    realm: "realm1",
    transports: [{ type: "websocket", url: process.argv[2] }]
});

connection.onopen = function (session) {
    var greetings = [];
    var counter = 0;

    session.subscribe("com.example.onhello", function (args) {
        greetings.push(args[0]);
    });

    session.register("com.example.add2", function (args) {
        return offset + args[0] + args[1];
    });

    session.register("com.example.greetings", function () {
        return greetings;
    });

    session.register("com.example.version", function () {
        return version;
    });

    session.register("com.example.whoami", function () {
        return { runtime: "node", cwd: process.cwd().split("/").pop(), argv: process.argv.slice(2) };
    }).then(function () {
        console.log("hello backend " + version + " ready");
    });

    setInterval(function () {
        session.publish("com.example.oncounter", [counter], { version: version });
        counter += 1;
    }, 200);
};

connection.open();
