/**
 * deploy/nginx.conf and deploy/haproxy.cfg as written (TLS lines swapped for a loopback port, the
 * upstream for this test's server) in front of a real nightgate: each request this uWS build
 * would drop unanswered (test/reliability/uws-drops.test.ts) is either forwarded in a form uWS
 * answers or answered by the proxy itself at once; a client's X-Forwarded-For is not believed;
 * /readyz reaches nightgate. The files' essential settings are checked always; the live part runs
 * where nginx or haproxy is installed (apt-get install nginx haproxy) and is skipped elsewhere.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startApp, type TestApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw-http.js';
import { ROOT } from '../helpers/spawn.js';

const NGINX = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8');
const HAPROXY = readFileSync(join(ROOT, 'deploy/haproxy.cfg'), 'utf8');

t.test('the examples carry the settings that keep requests clear of uWS drops, and check /readyz', async (t) => {
  t.match(NGINX, /^\s*proxy_http_version 1\.1;/m, 'nginx: HTTP/1.1 upstream');
  t.match(NGINX, /^\s*underscores_in_headers off;/m);
  t.match(NGINX, /^\s*proxy_pass_request_headers off;/m, 'nginx: a bounded set of forwarded headers');
  t.match(NGINX, /^\s*proxy_set_header X-Forwarded-For \$remote_addr;/m);
  t.match(NGINX, /\/readyz/);
  t.match(HAPROXY, /^\s*tune\.http\.maxhdr (\d+)$/m);
  t.ok(Number(/tune\.http\.maxhdr (\d+)/.exec(HAPROXY)![1]) <= 48, 'haproxy: fewer fields than uWS drops at');
  t.match(HAPROXY, /^\s*http-request return status 505 .* if HTTP_1\.0$/m);
  t.match(HAPROXY, /^\s*http-check send meth GET uri \/readyz ver HTTP\/1\.1 hdr Host \S+$/m, 'haproxy: an HTTP/1.1 health check of /readyz');
  t.match(HAPROXY, /^\s*http-request set-header X-Forwarded-For %\[src\]$/m);
});

const installed = (bin: string): boolean => spawnSync(bin, ['-v'], { stdio: 'ignore' }).status === 0;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once the port accepts a connection; fails if the proxy exits first. */
async function accepting(port: number, child: ChildProcess, output: () => string): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`proxy exited ${child.exitCode}: ${output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setImmediate(r));
  }
}

function run(t: Test, bin: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, output: () => out };
}

const fields = (n: number): string => Array.from({ length: n }, (_, i) => `X-F${i}: v\r\n`).join('');
const ALIVE = /^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"alive"\}/;
const UNTIL = { until: /\{"status":"(alive|ready)"\}|^HTTP\/1\.[01] [45]\d\d [\s\S]*\r\n\r\n/, timeoutMs: 5_000 };

async function nightgate(t: Test): Promise<TestApp> {
  const s = await startApp({ server: { trustedProxies: ['127.0.0.1/32'] } });
  t.teardown(() => s.close());
  return s;
}

/** The client IP nightgate logged for the request with this id. */
const loggedIp = (s: TestApp, id: string): unknown => s.logs.lines.find((l) => l['msg'] === 'request' && l['reqId'] === id)?.['ip'];

t.test('nginx, as in deploy/nginx.conf', { skip: installed('nginx') ? false : 'nginx is not installed' }, async (t) => {
  const s = await nightgate(t);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'ng-nginx-'));
  const site = NGINX.replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${port};`)
    .replace(/^\s*ssl_certificate.*$/gm, '')
    .replace('server 127.0.0.1:8080', `server 127.0.0.1:${s.port}`);
  writeFileSync(join(dir, 'nightgate.conf'), site);
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${dir}/${k};`).join(' ');
  writeFileSync(
    join(dir, 'main.conf'),
    `daemon off; master_process off; pid ${dir}/nginx.pid; error_log ${dir}` +
      `/error.log warn;\nevents { worker_connections 64; }\nhttp { access_log off; ${temps}` +
      ` include ${dir}` +
      `/nightgate.conf; }\n`,
  );
  const check = spawnSync('nginx', ['-t', '-p', dir, '-c', join(dir, 'main.conf')], { encoding: 'utf8' });
  t.equal(check.status, 0, `nginx -t: ${check.stderr}`);
  const p = run(t, 'nginx', ['-p', dir, '-c', join(dir, 'main.conf')]);
  await accepting(port, p.child, p.output);

  const via = (payload: string) => rawRequest(port, payload, UNTIL);
  t.match((await via('GET /livez HTTP/1.0\r\nHost: x\r\n\r\n')).data, ALIVE, 'HTTP/1.0 from the client: forwarded as 1.1, answered');
  t.match((await via(`GET /livez HTTP/1.1\r\nHost: x\r\n${fields(60)}\r\n`)).data, ALIVE, '61 header fields: only the ones nightgate reads are forwarded');
  t.match(
    (await via('GET /livez HTTP/1.1\r\nHost: x\r\nX_Forwarded_For: 10.1.2.3\r\n\r\n')).data,
    ALIVE,
    'an underscore header: dropped by nginx, the request answered',
  );
  t.match((await via('GET /livez HTTP/1.1\r\nHost: x\r\nX-A: one\r\n two\r\n\r\n')).data, /^HTTP\/1\.1 400 /, 'a folded header: 400 from nginx at once');
  t.match((await via('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n')).data, /^HTTP\/1\.1 200 OK\r\n[\s\S]*"ready"/, '/readyz reaches nightgate');
  await via('GET /livez HTTP/1.1\r\nHost: x\r\nX-Request-ID: spoof-nginx\r\nX-Forwarded-For: 10.1.2.3\r\n\r\n');
  t.equal(loggedIp(s, 'spoof-nginx'), '127.0.0.1', "the client's own X-Forwarded-For is replaced by its address");
});

t.test('HAProxy, as in deploy/haproxy.cfg', { skip: installed('haproxy') ? false : 'haproxy is not installed' }, async (t) => {
  const s = await nightgate(t);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'ng-haproxy-'));
  // A backup server that only records the health check HAProxy sends it (checked, never used).
  let firstCheck!: (request: string) => void;
  const checked = new Promise<string>((resolve) => (firstCheck = resolve));
  const probe = createServer((c) => {
    c.on('error', () => undefined);
    c.once('data', (d: Buffer) => {
      firstCheck(d.toString('latin1'));
      c.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    });
  });
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => probe.close(() => r())));
  const probeServer = `server probe 127.0.0.1:${(probe.address() as { port: number }).port} check backup`;
  const cfg = HAPROXY.replace(/bind :443 ssl .*$/m, `bind 127.0.0.1:${port}`)
    .replace('server nightgate1 127.0.0.1:8080', `server nightgate1 127.0.0.1:${s.port}`)
    .replace(/^(\s*server nightgate1 .*)$/m, `$1\n    ${probeServer}`);
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, cfg);
  const check = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
  t.equal(check.status, 0, `haproxy -c: ${check.stdout}${check.stderr}`);
  const p = run(t, 'haproxy', ['-db', '-f', file]);
  await accepting(port, p.child, p.output);

  const via = (payload: string) => rawRequest(port, payload, UNTIL);
  t.match((await via('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n')).data, ALIVE, 'a plain request is answered');
  t.match((await via('GET /livez HTTP/1.0\r\nHost: x\r\n\r\n')).data, /^HTTP\/1\.[01] 505 /, 'HTTP/1.0: 505 from HAProxy at once');
  t.match((await via(`GET /livez HTTP/1.1\r\nHost: x\r\n${fields(60)}\r\n`)).data, /^HTTP\/1\.[01] 400 /, '61 header fields: 400 from HAProxy');
  t.match((await via(`GET /livez HTTP/1.1\r\nHost: x\r\n${fields(38)}\r\n`)).data, ALIVE, '39 fields: forwarded and answered');
  t.match(
    (await via('GET /livez HTTP/1.1\r\nHost: x\r\nX_Forwarded_For: 10.1.2.3\r\n\r\n')).data,
    /^HTTP\/1\.[01] 400 /,
    'an underscore header: 400 from HAProxy',
  );
  t.match(
    (await via('GET /livez HTTP/1.1\r\nHost: x\r\nX-A: one\r\n two\r\n\r\n')).data,
    ALIVE,
    'a folded header: unfolded by HAProxy (RFC 9112 §5.2), answered',
  );
  t.match((await via('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n')).data, /^HTTP\/1\.1 200 OK\r\n[\s\S]*"ready"/, '/readyz reaches nightgate');
  t.match(await checked, /^GET \/readyz HTTP\/1\.1\r\n/, "HAProxy's health check is an HTTP/1.1 GET /readyz");
  await via('GET /livez HTTP/1.1\r\nHost: x\r\nX-Request-ID: spoof-haproxy\r\nX-Forwarded-For: 10.1.2.3\r\n\r\n');
  t.equal(loggedIp(s, 'spoof-haproxy'), '127.0.0.1', "the client's own X-Forwarded-For is replaced by its address");
});
