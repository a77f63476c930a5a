// The Node.js backend of the hello node, a guest worker: it joins the
// router at the URL of its first argument (a Unix socket of the node) and
// adds, counts and says hello.

var autobahn = require("autobahn");

var offset = parseInt(process.env.HELLO_OFFSET || "0", 10);

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

    session.register("com.example.whoami", function () {
        return { runtime: "node", cwd: process.cwd().split("/").pop(), argv: process.argv.slice(2) };
    }).then(function () {
        console.log("hello backend ready");
    });

    setInterval(function () {
        session.publish("com.example.oncounter", [counter]);
        counter += 1;
    }, 200);
};

connection.open();
