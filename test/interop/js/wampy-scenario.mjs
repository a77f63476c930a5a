#!/usr/bin/env node
// wampy-scenario.mjs runs the interop scenario of scenario.js with wampy.js
// (a second JavaScript client, over Node's ws module) and prints the same
// JSON result line. Same command line as scenario.js, WebSocket only:
//
//   node wampy-scenario.mjs --url ws://127.0.0.1:PORT/ws --realm realm1 \
//     [--serializer json|msgpack|cbor] [--authmethod anonymous|ticket|wampcra|cryptosign] \
//     [--authid ID] [--secret S] [--expect-fail] [--role all|callee|caller] \
//     [--prefix com.interop.UNIQUE] [--timeout SECONDS]
//
// wampy.js does not report the reason of the router's GOODBYE; the script
// reads it from the decoded messages.
import { Wampy } from 'wampy';
import { JsonSerializer } from 'wampy/JsonSerializer.js';
import { MsgpackSerializer } from 'wampy/MsgpackSerializer.js';
import { CborSerializer } from 'wampy/CborSerializer.js';
import { sign as craSign } from 'wampy/wampcra.js';
import { sign as cryptosignSign } from 'wampy/cryptosign.js';
import tweetnacl from 'tweetnacl';
import WebSocket from 'ws';
import common from './common.js';

const {ERROR_URI, EVENT_ARGS, EVENT_KWARGS, ERROR_ARGS, ERROR_KWARGS, PROGRESS, FINAL} = common.values;
const {check, same, sorted, uris} = common;
const {step, emit, fail, usage} = common.reporter('wampy-scenario.mjs');
const GOODBYE = 6;

function parseArgs(argv) {
  return common.parseArgs(argv, usage, 'wampy', (opts) => {
    if (!opts.url.startsWith('ws://')) usage('--url must be ws://HOST:PORT/PATH (wampy.js speaks WebSocket only)');
  });
}

// recording wraps a serializer so that the reason of the router's GOODBYE
// is kept in seen.goodbye.
function recording(serializer, seen) {
  const decode = serializer.decode.bind(serializer);
  serializer.decode = (data) => {
    const msg = decode(data);
    if (Array.isArray(msg) && msg[0] === GOODBYE) seen.goodbye = msg[2];
    return msg;
  };
  return serializer;
}

// negotiated is the serializer of the subprotocol the router chose, read
// from wampy's WebSocket (wampy.js does not report it).
function negotiated(w) {
  const proto = (w._ws && w._ws.protocol) || '';
  return proto.split('.')[2] || proto;
}

function serializerFor(name) {
  return {json: () => new JsonSerializer(), msgpack: () => new MsgpackSerializer(), cbor: () => new CborSerializer()}[name]();
}

function hex(bytes) {
  return Buffer.from(bytes).toString('hex');
}

function wampyOptions(opts, seen) {
  const o = {
    realm: opts.realm, ws: WebSocket, serializer: recording(serializerFor(opts.serializer), seen),
    autoReconnect: false, debug: Boolean(process.env.WAMPY_DEBUG),
  };
  if (opts.authid) o.authid = opts.authid;
  if (opts.authmethod !== 'anonymous') {
    o.authmethods = [opts.authmethod];
    o.authMode = 'auto';
    const plugins = {
      ticket: () => () => opts.secret,
      wampcra: () => craSign(opts.secret),
      cryptosign: () => cryptosignSign(opts.secret),
    };
    o.authPlugins = {[opts.authmethod]: plugins[opts.authmethod]()};
    if (opts.authmethod === 'cryptosign') {
      const pair = tweetnacl.sign.keyPair.fromSeed(Buffer.from(opts.secret, 'hex'));
      o.authextra = {pubkey: hex(pair.publicKey)};
    }
  }
  return o;
}

function describe(err) {
  if (err && err.errorUri) {
    return 'WAMP error ' + err.errorUri + ' ' + JSON.stringify(err.argsList) + ' ' + JSON.stringify(err.argsDict);
  }
  if (err && err.stack) return err.stack;
  return String(err);
}

// provide registers the procedures and subscribes to the topic; it returns
// {event}, a promise of the first event.
async function provide(w, u, counts) {
  const count = (name, fn) => async (inv) => { counts[name]++; return fn(inv); };
  await w.register(u.add2, count('add2', ({argsList}) => ({argsList: [argsList[0] + argsList[1]]})));
  await w.register(u.progress, count('progress', ({details, result_handler}) => {
    if (!details.receive_progress) {
      throw {error: 'com.interop.no_progress', argsList: ['caller did not ask for progressive results']};
    }
    for (const p of PROGRESS) result_handler({argsList: [p], options: {progress: true}});
    return {argsList: [FINAL]};
  }));
  await w.register(u.error, count('error', () => {
    throw {error: ERROR_URI, argsList: ERROR_ARGS, argsDict: ERROR_KWARGS};
  }));
  step('registered ' + u.add2 + ', ' + u.progress + ', ' + u.error);
  let resolve;
  const event = new Promise((r) => { resolve = r; });
  await w.subscribe(u.topic, (ev) => resolve(ev));
  step('subscribed to ' + u.topic);
  return {event};
}

async function runCaller(opts, w, u) {
  const a = 'a'.repeat(700), b = 'b'.repeat(700);
  const r = await w.call(u.add2, [a, b]);
  check(same(r.argsList, [a + b]), 'add2 of two strings of 700 characters returned ' + JSON.stringify(r.argsList).slice(0, 40) + '...');
  step('called add2');

  const got = [];
  const final = await w.call(u.progress, [], {progress_callback: (p) => got.push(p.argsList[0])});
  check(same(got, PROGRESS), 'progressive results ' + JSON.stringify(got) + ', want ' + JSON.stringify(PROGRESS));
  check(same(final.argsList, [FINAL]), 'final result ' + JSON.stringify(final.argsList));
  step('called progress');

  let err = null;
  try {
    await w.call(u.error);
  } catch (e) {
    err = e;
  }
  check(err && err.errorUri === ERROR_URI, 'call error ' + describe(err) + ', want ' + ERROR_URI);
  check(same(err.argsList, ERROR_ARGS), 'error args ' + JSON.stringify(err.argsList));
  check(same(sorted(err.argsDict), sorted(ERROR_KWARGS)), 'error kwargs ' + JSON.stringify(err.argsDict));
  step('called error');

  // wampy.js sends exclude_me only when true, so a session cannot receive
  // its own event: a second session publishes it.
  const publisher = new Wampy(opts.url, wampyOptions(opts, {}));
  await publisher.connect();
  const pub = await publisher.publish(u.topic, {argsList: EVENT_ARGS, argsDict: EVENT_KWARGS}, {acknowledge: true});
  check(pub && pub.publicationId, 'publication acknowledged without an ID');
  await publisher.disconnect();
  step('published');
}

async function runScenario(opts, w) {
  const u = uris(opts.prefix);
  const counts = {add2: 0, progress: 0, error: 0};
  if (opts.role === 'caller') {
    await runCaller(opts, w, u);
    return {};
  }
  const {event} = await provide(w, u, counts);
  if (opts.role === 'callee') {
    emit({ready: true});
  } else {
    await runCaller(opts, w, u);
  }
  const ev = await event;
  check(same(ev.argsList, EVENT_ARGS), 'event args ' + JSON.stringify(ev.argsList));
  check(same(sorted(ev.argsDict), sorted(EVENT_KWARGS)), 'event kwargs ' + JSON.stringify(ev.argsDict));
  check(Object.keys(ev.argsDict).join() === Object.keys(EVENT_KWARGS).join(),
    'event kwargs keys ' + Object.keys(ev.argsDict) + ', want in the order sent: ' + Object.keys(EVENT_KWARGS));
  step('received the event');
  check(same(counts, {add2: 1, progress: 1, error: 1}), 'invocations ' + JSON.stringify(counts));
  return {invocations: counts};
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  setTimeout(() => fail('timed out after ' + opts.timeout + 's'), opts.timeout * 1000).unref();
  const seen = {goodbye: ''};
  const w = new Wampy(opts.url, wampyOptions(opts, seen));
  step('connecting to ' + opts.url + ' with ' + opts.serializer + ', ' + opts.authmethod);
  let details;
  try {
    details = await w.connect();
  } catch (e) {
    if (opts.expectFail && e.errorUri) {
      emit({ok: true, client: 'wampy.js', refused: true, reason: e.errorUri, message: (e.details && e.details.message) || ''});
      process.exit(0);
    }
    fail('join failed: ' + describe(e));
  }
  const serializer = negotiated(w);
  step('joined as ' + details.authid + '/' + details.authrole + ' with ' + serializer);
  if (opts.expectFail) fail('joined as ' + details.authid + '/' + details.authrole + ', want the join refused');
  let extra;
  try {
    extra = await runScenario(opts, w);
  } catch (e) {
    fail(describe(e));
  }
  step('leaving');
  await w.disconnect();
  emit(Object.assign({
    ok: true, client: 'wampy.js', role: opts.role, serializer,
    authid: details.authid, authrole: details.authrole, authmethod: details.authmethod,
    goodbye: seen.goodbye,
  }, extra));
  process.exit(0);
}

main();
