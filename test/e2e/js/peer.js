#!/usr/bin/env node
// peer.js is the autobahn-js callee and subscriber of the HTTP bridge tests
// (test/e2e): it joins a realm anonymously, registers PREFIX.one, .two, .kw,
// .both, .empty, .echo, .error and .slow (see README.md for their results),
// subscribes to PREFIX.topic, prints {"ready": true} and then one JSON line
// per event: {"event": {"topic", "publication", "args", "kwargs"}}. Closing
// its stdin makes it leave with GOODBYE and exit 0; any failure prints
// {"ok": false, "error": ...} and exits 1. Progress notes go to stderr.
//
//   node peer.js --url ws://127.0.0.1:PORT/ws --realm realm1 --prefix com.e2e.js \
//     [--serializer json|msgpack|cbor] [--timeout SECONDS]
//
// autobahn-js is required from test/interop/js/node_modules (installed by
// scripts/install-test-deps.sh). autobahn-js 22 has no INTERRUPT handler
// (its callee does not announce call_canceling), so .slow cannot report an
// interruption: it answers after --slow-ms milliseconds.
'use strict';

const path = require('path');
const modules = path.join(__dirname, '..', '..', 'interop', 'js', 'node_modules');
const autobahn = require(path.join(modules, 'autobahn'));

function parseArgs(argv) {
  const opts = {url: '', realm: 'realm1', prefix: '', serializer: 'json', timeout: 60, slowMs: 10000};
  const names = {'--url': 'url', '--realm': 'realm', '--prefix': 'prefix', '--serializer': 'serializer',
    '--timeout': 'timeout', '--slow-ms': 'slowMs'};
  for (let i = 0; i < argv.length; i++) {
    const name = names[argv[i]];
    if (name === undefined || i + 1 >= argv.length) fail('usage: unknown argument or missing value ' + argv[i]);
    opts[name] = argv[++i];
  }
  if (!opts.url || !opts.prefix) fail('usage: --url and --prefix are required');
  opts.timeout = Number(opts.timeout);
  opts.slowMs = Number(opts.slowMs);
  return opts;
}

const started = Date.now();

function step(msg) {
  process.stderr.write('peer.js: +' + (Date.now() - started) + 'ms ' + msg + '\n');
}

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function fail(msg) {
  process.stderr.write('peer.js: ' + msg + '\n');
  emit({ok: false, error: String(msg)});
  process.exit(1);
}

function describe(err) {
  return (err && (err.error || err.stack || err.message)) || String(err);
}

function serializerFor(name) {
  const s = autobahn.serializer;
  const made = {json: s.JSONSerializer, msgpack: s.MsgpackSerializer, cbor: s.CBORSerializer}[name];
  if (!made) fail('unknown serializer ' + name);
  return new made();
}

// procedures are the registered handlers, by the last URI component.
function procedures(opts) {
  const R = autobahn.Result;
  return {
    one: () => 42,
    two: () => new R(['a', 2]),
    kw: () => new R([], {k: 'v'}),
    both: () => new R([1], {k: 'v'}),
    empty: () => new R([], {}),
    echo: (args, kwargs) => new R(args, kwargs),
    error: () => { throw new autobahn.Error('com.e2e.error', ['bad', 42], {reason: 'because', code: 7}); },
    slow: () => {
      emit({invoked: 'slow'});
      return new Promise((resolve) => setTimeout(() => resolve('late'), opts.slowMs).unref());
    },
  };
}

async function provide(session, opts) {
  for (const [name, fn] of Object.entries(procedures(opts))) {
    await session.register(opts.prefix + '.' + name, fn);
  }
  step('registered ' + opts.prefix + '.*');
  await session.subscribe(opts.prefix + '.topic', (args, kwargs, details) => {
    emit({event: {topic: details.topic || opts.prefix + '.topic', publication: details.publication,
      args: args || [], kwargs: kwargs || {}}});
  });
  step('subscribed to ' + opts.prefix + '.topic');
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  setTimeout(() => fail('timed out after ' + opts.timeout + 's'), opts.timeout * 1000).unref();
  const conn = new autobahn.Connection({
    transports: [{type: 'websocket', url: opts.url}],
    realm: opts.realm,
    serializers: [serializerFor(opts.serializer)],
    max_retries: 0,
    retry_if_unreachable: false,
    // .error raises on purpose; say so instead of printing a stack.
    on_user_error: (err, msg) => step(msg + ' ' + (err && err.error)),
    // A protocol violation fails: autobahn-js closes the connection. (Its
    // error is lost: session.js calls its Error class without new.)
    on_internal_error: (err, msg) => fail('autobahn-js internal error: a protocol violation (such as an ' +
      'unexpected message type) closed the connection' + (err ? ': ' + (msg || '') + describe(err) : '')),
  });
  let leaving = false;
  conn.onopen = (session) => {
    step('joined as ' + session.id);
    provide(session, opts).then(() => emit({ready: true}), (err) => fail('setup: ' + err));
  };
  conn.onclose = (reason, details) => {
    if (leaving) {
      emit({ok: true, goodbye: details.reason});
      process.exit(0);
    }
    fail('connection ' + reason + ' ' + JSON.stringify(details));
    return true;
  };
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => {
    step('stdin closed: leaving');
    leaving = true;
    conn.close();
  });
  step('connecting to ' + opts.url + ' with ' + opts.serializer);
  conn.open();
}

main();
