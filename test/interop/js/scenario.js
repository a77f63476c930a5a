#!/usr/bin/env node
// scenario.js runs the interop scenario with autobahn-js against a WAMP
// router and prints one JSON line on stdout: {"ok": true, ...} and exit 0 on
// success, {"ok": false, "error": ...} and exit 1 on any failure (the message
// is also written to stderr). Run by test/interop/interop_test.go.
//
//   node scenario.js --url ws://127.0.0.1:PORT/ws|rs://127.0.0.1:PORT --realm realm1 \
//     [--serializer json|msgpack|cbor] [--authmethod anonymous|ticket|wampcra|cryptosign] \
//     [--authid ID] [--secret S] [--expect-fail] [--role all|callee|caller] \
//     [--prefix com.interop.UNIQUE] [--timeout SECONDS]
//
// With --authmethod cryptosign, --secret is the Ed25519 private key's seed
// (64 hex digits); its public key is sent in HELLO's authextra.pubkey.
//
// Roles: "all" (default) registers, calls, subscribes and publishes in one
// session. "callee" registers the procedures and subscribes, prints
// {"ready": true} once it has, then waits for the caller's event; "caller"
// calls the callee's procedures and publishes that event. Both must be given
// the same --prefix.
'use strict';

// AUTOBAHN_DEBUG=1 in the environment makes autobahn-js trace every message.
if (process.env.AUTOBAHN_DEBUG) global.AUTOBAHN_DEBUG = true;
const autobahn = require('autobahn');
const common = require('./common.js');

const {ERROR_URI, EVENT_ARGS, EVENT_KWARGS, ERROR_ARGS, ERROR_KWARGS, PROGRESS, FINAL} = common.values;
const {check, same, sorted, uris} = common;
const {step, emit, fail, usage} = common.reporter('scenario.js');

function parseArgs(argv) {
  return common.parseArgs(argv, usage, 'js', (opts) => {
    if (opts.url.startsWith('rs://') && opts.serializer !== 'json') usage('autobahn-js speaks RawSocket with json only');
  });
}

function describe(err) {
  if (err instanceof autobahn.Error) {
    return 'WAMP error ' + err.error + ' ' + JSON.stringify(err.args) + ' ' + JSON.stringify(err.kwargs);
  }
  if (err && err.stack) return err.stack;
  return String(err);
}

function serializerFor(name) {
  const s = autobahn.serializer;
  const made = {json: s.JSONSerializer, msgpack: s.MsgpackSerializer, cbor: s.CBORSerializer}[name];
  if (!made) fail('autobahn-js has no ' + name + ' serializer (is its npm dependency installed?)');
  return new made();
}

// cryptosignKey returns the tweetnacl key pair of the hex seed.
function cryptosignKey(seedHex) {
  return autobahn.nacl.sign.keyPair.fromSeed(autobahn.util.htob(seedHex));
}

function onChallenge(opts, key) {
  return function (session, method, extra) {
    if (method === 'ticket') return opts.secret;
    if (method === 'cryptosign') return autobahn.auth_cryptosign.sign_challenge(key, extra);
    if (method === 'wampcra') {
      let key = opts.secret;
      if (extra.salt) {
        key = autobahn.auth_cra.derive_key(opts.secret, extra.salt, extra.iterations, extra.keylen);
      }
      return autobahn.auth_cra.sign(key, extra.challenge);
    }
    throw new Error('unexpected challenge method ' + method);
  };
}

// transportFor returns the autobahn-js transport for url: ws://HOST:PORT/PATH
// or rs://HOST:PORT (RawSocket, which autobahn-js speaks with JSON only).
function transportFor(url) {
  if (url.startsWith('ws://')) return {type: 'websocket', url: url};
  const m = /^rs:\/\/([^:/]+):(\d+)\/?$/.exec(url);
  if (!m) usage('--url must be ws://HOST:PORT/PATH or rs://HOST:PORT, not ' + JSON.stringify(url));
  return {type: 'rawsocket', host: m[1], port: Number(m[2])};
}

function connectionOptions(opts) {
  const o = {
    transports: [transportFor(opts.url)],
    realm: opts.realm,
    serializers: [serializerFor(opts.serializer)],
    max_retries: 0,
    retry_if_unreachable: false,
    on_user_error: (err, msg) => process.stderr.write('scenario.js: ' + msg + ' ' + describe(err) + '\n'),
    on_internal_error: (err, msg) => process.stderr.write('scenario.js: internal: ' + msg + ' ' + describe(err) + '\n'),
  };
  if (opts.authmethod !== 'anonymous') {
    o.authmethods = [opts.authmethod];
    let key = null;
    if (opts.authmethod === 'cryptosign') {
      key = cryptosignKey(opts.secret);
      o.authextra = {pubkey: autobahn.auth_cryptosign.public_key(key)};
    }
    o.onchallenge = onChallenge(opts, key);
  }
  if (opts.authid) o.authid = opts.authid;
  return o;
}

// deferred is a promise with its resolve and reject functions.
function deferred() {
  const d = {};
  d.promise = new Promise((resolve, reject) => { d.resolve = resolve; d.reject = reject; });
  return d;
}

function add2(args) {
  return args[0] + args[1];
}

function progressive(args, kwargs, details) {
  if (!details.progress) {
    throw new autobahn.Error('com.interop.no_progress', ['caller did not ask for progressive results']);
  }
  for (const p of PROGRESS) details.progress([p]);
  return FINAL;
}

function raiser() {
  throw new autobahn.Error(ERROR_URI, ERROR_ARGS, ERROR_KWARGS);
}

// provide registers the procedures and subscribes to the topic; it returns
// {event}, a promise of the first event received (wrapped, because an async
// function returning a promise would wait for it).
async function provide(session, u, counts) {
  const count = (name, fn) => (args, kwargs, details) => { counts[name]++; return fn(args, kwargs, details); };
  await session.register(u.add2, count('add2', add2));
  await session.register(u.progress, count('progress', progressive));
  await session.register(u.error, count('error', raiser));
  step('registered ' + u.add2 + ', ' + u.progress + ', ' + u.error);
  const event = deferred();
  await session.subscribe(u.topic, (args, kwargs, details) => event.resolve({args, kwargs, details}));
  step('subscribed to ' + u.topic);
  return {event: event.promise};
}

// callAdd2 adds two strings of 700 characters: the CALL is over the 1 KiB
// above which the ws module compresses when the router offers
// permessage-deflate, and every message of the call is then compressed.
async function callAdd2(session, u) {
  const a = 'a'.repeat(700), b = 'b'.repeat(700);
  const r = await session.call(u.add2, [a, b]);
  check(r === a + b, 'add2 of two strings of 700 characters returned ' + JSON.stringify(r).slice(0, 40) + '..., want their concatenation');
}

async function callProgress(session, u) {
  const got = [];
  const final = await new Promise((resolve, reject) => {
    // autobahn-js 22 reports progressive results through when.js's third
    // then() argument (onProgress).
    session.call(u.progress, [], {}, {receive_progress: true}).then(resolve, reject, (p) => got.push(p));
  });
  check(same(got, PROGRESS), 'progressive results ' + JSON.stringify(got) + ', want ' + JSON.stringify(PROGRESS));
  check(final === FINAL, 'final result ' + JSON.stringify(final) + ', want ' + JSON.stringify(FINAL));
}

async function callError(session, u) {
  let err = null;
  try {
    const r = await session.call(u.error);
    throw new Error('call to ' + u.error + ' returned ' + JSON.stringify(r) + ', want an error');
  } catch (e) {
    err = e;
  }
  check(err instanceof autobahn.Error, 'call error is not a WAMP error: ' + describe(err));
  check(err.error === ERROR_URI, 'error URI ' + err.error + ', want ' + ERROR_URI);
  check(same(err.args, ERROR_ARGS), 'error args ' + JSON.stringify(err.args) + ', want ' + JSON.stringify(ERROR_ARGS));
  check(same(sorted(err.kwargs), sorted(ERROR_KWARGS)),
    'error kwargs ' + JSON.stringify(err.kwargs) + ', want ' + JSON.stringify(ERROR_KWARGS));
}

async function publish(session, u) {
  const pub = await session.publish(u.topic, EVENT_ARGS, EVENT_KWARGS, {acknowledge: true, exclude_me: false});
  check(pub && pub.id, 'publication acknowledged without an ID: ' + JSON.stringify(pub));
}

function checkEvent(ev) {
  check(same(ev.args, EVENT_ARGS), 'event args ' + JSON.stringify(ev.args) + ', want ' + JSON.stringify(EVENT_ARGS));
  check(same(sorted(ev.kwargs), sorted(EVENT_KWARGS)),
    'event kwargs ' + JSON.stringify(ev.kwargs) + ', want ' + JSON.stringify(EVENT_KWARGS));
  check(Object.keys(ev.kwargs).join() === Object.keys(EVENT_KWARGS).join(),
    'event kwargs keys ' + Object.keys(ev.kwargs) + ', want in the order sent: ' + Object.keys(EVENT_KWARGS));
}

async function runCaller(session, u) {
  await callAdd2(session, u);
  step('called add2');
  await callProgress(session, u);
  step('called progress');
  await callError(session, u);
  step('called error');
  await publish(session, u);
  step('published');
}

async function runScenario(opts, session) {
  const u = uris(opts.prefix);
  const counts = {add2: 0, progress: 0, error: 0};
  if (opts.role === 'caller') {
    await runCaller(session, u);
    return {};
  }
  const {event} = await provide(session, u, counts);
  if (opts.role === 'callee') {
    emit({ready: true});
  } else {
    await runCaller(session, u);
  }
  checkEvent(await event);
  step('received the event');
  const want = {add2: 1, progress: 1, error: 1};
  check(same(counts, want), 'invocations ' + JSON.stringify(counts) + ', want ' + JSON.stringify(want));
  return {invocations: counts};
}

function serializerOf(details) {
  const proto = (details.transport && details.transport.protocol) || '';
  return proto.split('.')[2] || proto;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  setTimeout(() => fail('timed out after ' + opts.timeout + 's'), opts.timeout * 1000);
  const conn = new autobahn.Connection(connectionOptions(opts));
  let joined = false;
  let result = null; // set when the scenario passed; printed once the session has left
  conn.onopen = (session, details) => {
    joined = true;
    step('joined as ' + details.authid + '/' + details.authrole);
    if (opts.expectFail) fail('joined as ' + details.authid + '/' + details.authrole + ', want the join refused');
    runScenario(opts, session).then((extra) => {
      result = Object.assign({
        ok: true, client: 'autobahn-js', role: opts.role, serializer: serializerOf(details),
        authid: details.authid, authrole: details.authrole, authmethod: details.authmethod,
      }, extra);
      step('leaving');
      conn.close(); // GOODBYE; onclose follows the router's GOODBYE
    }, (err) => fail(describe(err)));
  };
  conn.onclose = (reason, details) => {
    if (result) {
      result.goodbye = details.reason;
      emit(result);
      process.exit(0);
    }
    if (joined) fail('connection ' + reason + ' during the scenario: ' + JSON.stringify(details));
    if (opts.expectFail && details.reason) {
      emit({ok: true, client: 'autobahn-js', refused: true, reason: details.reason, message: details.message || ''});
      process.exit(0);
    }
    fail('join failed: connection ' + reason + ' ' + JSON.stringify(details));
    return true;
  };
  step('connecting to ' + opts.url + ' with ' + opts.serializer + ', ' + opts.authmethod);
  conn.open();
}

main();
