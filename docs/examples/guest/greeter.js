// greeter.js: a guest worker (docs/guest-workers.md). It reads its
// settings as JSON on stdin, connects to the router given by WAMP_URL with
// autobahn-js, and registers com.example.greet. What it prints goes to the
// node log under the worker's name. On SIGTERM (the node stopping) it
// leaves the realm and exits.
"use strict";
const autobahn = require("autobahn");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => run(JSON.parse(input)));

function run(settings) {
  const connection = new autobahn.Connection({ url: process.env.WAMP_URL, realm: settings.realm });
  let stopping = false;

  connection.onopen = (session) => {
    const greet = (args) => `${settings.greeting}, ${args[0]}!`;
    session.register("com.example.greet", greet).then(
      (reg) => console.log(`registered ${reg.procedure}`),
      (err) => { console.error(`cannot register: ${err.error}`); process.exit(1); },
    );
  };
  connection.onclose = (reason) => {
    if (stopping) {
      process.exit(0);
    }
    console.error(`connection lost (${reason}), retrying`);
  };

  process.on("SIGTERM", () => {
    console.log("SIGTERM: leaving");
    stopping = true;
    setTimeout(() => process.exit(0), 2000).unref(); // should GOODBYE not come
    try {
      connection.close();
    } catch (e) {
      process.exit(0); // not connected
    }
  });
  connection.open();
}
