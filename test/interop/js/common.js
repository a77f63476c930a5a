// common.js is what the interop scenario scripts share (scenario.js with
// autobahn-js, wampy-scenario.mjs with wampy.js): the scenario's values,
// the command line, the progress notes on stderr and the JSON result line.
'use strict';

const values = {
  ERROR_URI: 'com.interop.error',
  EVENT_ARGS: ['hello', 1],
  EVENT_KWARGS: {zeta: 'z', k: 'v', alpha: 'a'}, // keys not sorted: their order must arrive
  ERROR_ARGS: ['bad', 42],
  ERROR_KWARGS: {reason: 'because', code: 7},
  PROGRESS: [1, 2, 3],
  FINAL: 'done',
};

// reporter returns the output functions of the script named script.
function reporter(script) {
  const started = Date.now();
  const emit = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
  const fail = (msg) => {
    process.stderr.write(script + ': ' + msg + '\n');
    emit({ok: false, error: String(msg)});
    process.exit(1);
  };
  return {
    emit,
    fail,
    usage: (msg) => fail('usage: ' + msg),
    // step notes progress, so that a failure shows how far it got.
    step: (msg) => process.stderr.write(script + ': +' + (Date.now() - started) + 'ms ' + msg + '\n'),
  };
}

// parseArgs reads the command line (see scenario.js) with the reporter's
// usage; checkURL(opts, usage) checks what the client can reach.
function parseArgs(argv, usage, prefixTag, checkURL) {
  const opts = {
    url: '', realm: 'realm1', serializer: 'json', authmethod: 'anonymous',
    authid: '', secret: '', expectFail: false, role: 'all',
    prefix: 'com.interop.' + prefixTag + process.pid + '_' + Date.now(), timeout: 20,
  };
  const names = {
    '--url': 'url', '--realm': 'realm', '--serializer': 'serializer',
    '--authmethod': 'authmethod', '--authid': 'authid', '--secret': 'secret',
    '--role': 'role', '--prefix': 'prefix', '--timeout': 'timeout',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--expect-fail') {
      opts.expectFail = true;
    } else if (names[a] !== undefined) {
      if (i + 1 >= argv.length) usage(a + ' needs a value');
      opts[names[a]] = argv[++i];
    } else {
      usage('unknown argument ' + JSON.stringify(a));
    }
  }
  opts.timeout = Number(opts.timeout);
  if (!opts.url) usage('--url is required');
  if (!['json', 'msgpack', 'cbor'].includes(opts.serializer)) usage('--serializer must be json, msgpack or cbor');
  if (!['anonymous', 'ticket', 'wampcra', 'cryptosign'].includes(opts.authmethod)) {
    usage('--authmethod must be anonymous, ticket, wampcra or cryptosign');
  }
  if (opts.authmethod === 'cryptosign' && !/^[0-9a-fA-F]{64}$/.test(opts.secret)) {
    usage('--secret must be a 64 hex digit Ed25519 seed with --authmethod cryptosign');
  }
  if (!['all', 'callee', 'caller'].includes(opts.role)) usage('--role must be all, callee or caller');
  if (!(opts.timeout > 0)) usage('--timeout must be a positive number of seconds');
  checkURL(opts, usage);
  return opts;
}

function check(cond, msg) {
  if (!cond) throw new Error('check failed: ' + msg);
}

function same(got, want) {
  return JSON.stringify(got) === JSON.stringify(want);
}

function sorted(obj) {
  const out = {};
  for (const k of Object.keys(obj || {}).sort()) out[k] = obj[k];
  return out;
}

function uris(prefix) {
  return {
    add2: prefix + '.add2',
    progress: prefix + '.progress',
    error: prefix + '.error',
    topic: prefix + '.topic',
  };
}

module.exports = {values, reporter, parseArgs, check, same, sorted, uris};
