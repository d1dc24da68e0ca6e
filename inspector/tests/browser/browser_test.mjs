// End-to-end check of ripple-inspector's page in a real headless Chromium.
//
//   node inspector/tests/browser/browser_test.mjs [path/to/crates]
//
// Starts the `crates` example with writes on, opens the address it prints, and checks,
// as a user would see it: the status turns live, the Position change sparkline plots real
// frames, the entity search finds crates by "health", a crate's Health edited in its
// textarea and applied lands in the world (read back through the API, not through the
// page), and the page shows the new value when the detail is loaded afresh; the token
// leaves the address bar after load, and a reload still goes live. Leaves a
// full-page screenshot behind. Exits 0 on success, 1 with the failing step otherwise; the
// game is killed on every path out. `.ci/browser` installs what this needs and runs it.
//
// Environment: RIPPLE_CRATES_BIN (the example binary, when not given as the argument),
// CHROMIUM (the browser, /usr/bin/chromium by default), RIPPLE_SCREENSHOT (where the
// screenshot goes, target/inspector-browser.png by default), RIPPLE_BROWSER_PREFIX (the npm
// prefix playwright-core is installed under, target/browser-test by default),
// RIPPLE_BROWSER_TIMEOUT_S (the whole run's limit, 90 by default), RIPPLE_CRATES (the
// level's size, 100,000 by default).

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BIN = path.resolve(process.argv[2] || process.env.RIPPLE_CRATES_BIN || path.join(ROOT, 'target/release/examples/crates'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOT = path.resolve(process.env.RIPPLE_SCREENSHOT || path.join(ROOT, 'target/inspector-browser.png'));
const PREFIX = path.resolve(process.env.RIPPLE_BROWSER_PREFIX || path.join(ROOT, 'target/browser-test'));
const OVERALL_MS = 1000 * (Number(process.env.RIPPLE_BROWSER_TIMEOUT_S) || 90);
const STEP_MS = 20_000;
const GAME_ARGS = ['--crates', process.env.RIPPLE_CRATES || '100000', '--writes', '--fps', '60'];

const started = Date.now();
const secs = () => ((Date.now() - started) / 1000).toFixed(1) + ' s';
let abandoned = false; // set on failure: a run() still going after a timeout stops at its next step
const log = msg => { if (!abandoned) console.log(`[${secs()}] ${msg}`); };

let interrupted = 0; // the exit status a SIGINT or SIGTERM asks for
let game = null;
let gameExit = null; // set once the game has exited: "code N" or "signal S"
const gameErr = [];  // the game's stderr, last lines, for failure reports
let context = null;
let page = null;
let userDataDir = null;
const pageErrors = [];
const consoleErrors = [];

// ES modules ignore NODE_PATH, so the pinned copy under the npm prefix is loaded with a
// require rooted there; a plain import is the fallback (playwright-core installed elsewhere
// on the resolution path).
async function loadPlaywright() {
  if (existsSync(path.join(PREFIX, 'node_modules', 'playwright-core'))) {
    return createRequire(path.join(PREFIX, 'package.json'))('playwright-core');
  }
  try {
    return await import('playwright-core');
  } catch (e) {
    throw new Error(`playwright-core is not installed under ${PREFIX} nor importable (${e.message}); run .ci/browser`);
  }
}

function startGame() {
  if (!existsSync(BIN)) {
    throw new Error(`no game binary at ${BIN}; build it with: cargo build --release -p ripple-inspector --example crates`);
  }
  log(`starting ${BIN} ${GAME_ARGS.join(' ')}`);
  game = spawn(BIN, GAME_ARGS, { stdio: ['ignore', 'pipe', 'pipe'] });
  readline.createInterface({ input: game.stderr }).on('line', line => {
    gameErr.push(line);
    if (gameErr.length > 40) gameErr.shift();
  });
  const exited = new Promise(resolve => game.once('exit', (code, signal) => {
    gameExit = signal ? `signal ${signal}` : `code ${code}`;
    resolve();
  }));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the game printed no address within 30 s')), 30_000);
    game.once('error', e => { clearTimeout(timer); reject(new Error(`could not start the game: ${e.message}`)); });
    exited.then(() => { clearTimeout(timer); reject(new Error(`the game exited (${gameExit}) before printing its address`)); });
    readline.createInterface({ input: game.stdout }).on('line', line => {
      const m = /^inspect .* at (http:\/\/\S+)\s*$/.exec(line);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
}

async function killGame() {
  if (!game || gameExit) return;
  const gone = new Promise(resolve => game.once('exit', resolve));
  game.kill('SIGTERM');
  const timer = setTimeout(() => { if (!gameExit) game.kill('SIGKILL'); }, 3000);
  await gone;
  clearTimeout(timer);
}
// Last resort: whatever way Node leaves, the game does not outlive it.
process.on('exit', () => { if (game && !gameExit) try { game.kill('SIGKILL'); } catch (_) { /* already gone */ } });

async function step(name, fn) {
  if (abandoned) throw new Error(`"${name}" not started: the run has already failed`);
  if (gameExit) throw new Error(`before "${name}": the game exited (${gameExit})`);
  try {
    const result = await fn();
    return result;
  } catch (e) {
    const why = gameExit ? ` (the game exited: ${gameExit})` : '';
    throw new Error(`${name}: ${e.message.split('\n')[0]}${why}`);
  }
}

// The world as the API reports it, independent of the page.
async function healthInWorld(base, token, bits) {
  const url = `${base}/api/entity?id=${encodeURIComponent(bits)}&token=${encodeURIComponent(token)}`;
  const res = await fetch(url, { signal: AbortSignal.timeout(8000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET /api/entity?id=${bits} answered ${res.status}: ${text.slice(0, 300)}`);
  const health = (JSON.parse(text).components || []).find(c => c && c.name === 'Health');
  if (!health) throw new Error(`GET /api/entity?id=${bits} has no Health component: ${text.slice(0, 300)}`);
  return health.value;
}

async function run() {
  const { chromium } = await loadPlaywright();
  const address = await step('start the game', startGame);
  const url = new URL(address);
  const base = url.origin, token = url.searchParams.get('token');
  if (!token) throw new Error(`the game's address has no token: ${address}`);
  log(`game serves ${base} (token ${token.length} chars)`);

  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}; install Debian's chromium or set CHROMIUM`);
  userDataDir = mkdtempSync(path.join(tmpdir(), 'ripple-inspector-chromium-'));
  context = await step('launch Chromium', () => chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 1000 }, // wide enough for the page's two columns
    timeout: STEP_MS,
  }));
  log(`Chromium ${context.browser()?.version() ?? '(version unknown)'} from ${CHROMIUM}`);
  page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', e => pageErrors.push(e.message));
  page.on('console', m => { if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location().url || 'page'})`); });

  await step('open the page', async () => {
    const res = await page.goto(address, { waitUntil: 'load' });
    if (!res || !res.ok()) throw new Error(`GET / answered ${res ? res.status() : 'nothing'}`);
  });

  await step('#status reads "live"', () =>
    page.waitForFunction(() => document.getElementById('status')?.textContent === 'live'));
  log('checked: #status reads "live"');

  // The token leaves the address bar once the page has it (it would show in the
  // history, screenshots and links passed on); a reload still finds it, in this tab.
  await step('the address bar has no token', async () => {
    const shown = new URL(page.url());
    if (shown.searchParams.has('token')) throw new Error(`the address bar still shows the token: ${page.url()}`);
  });
  await step('a reload goes live again', async () => {
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'live');
  });
  log('checked: the token is out of the address bar, and a reload still goes live');

  // The badge follows the overview, which the page polls every 2 s.
  await step('#writes reads "writes on"', () =>
    page.waitForFunction(() => document.getElementById('writes')?.textContent === 'writes on'));
  log('checked: #writes reads "writes on"');

  const spark = 'canvas.sparkline[data-component="Position"]';
  await step(`${spark} plots >= 10 frames with max > 0`, async () => {
    try {
      await page.waitForFunction(sel => {
        const c = document.querySelector(sel);
        return c && Number(c.dataset.points) >= 10 && Number(c.dataset.max) > 0;
      }, spark);
    } catch (e) {
      const now = await page.evaluate(sel => {
        const c = document.querySelector(sel);
        return c ? `data-points=${c.dataset.points} data-max=${c.dataset.max}` : 'no such canvas';
      }, spark).catch(() => 'unknown');
      throw new Error(`${e.message.split('\n')[0]}; now ${now}`);
    }
  });
  const sparkData = await page.locator(spark).evaluate(c => ({ points: c.dataset.points, max: c.dataset.max }));
  const rows = await page.locator('#changes div.spark-row[data-component]').evaluateAll(rs => rs.map(r => r.dataset.component));
  log(`checked: Position sparkline data-points=${sparkData.points} data-max=${sparkData.max}; change rows: ${rows.join(', ')}`);

  // The list is filled unfiltered at load; wait for the answer to the search itself.
  const searched = page.waitForResponse(r => {
    const u = new URL(r.url());
    return u.pathname === '/api/entities' && u.searchParams.get('q') === 'health';
  });
  searched.catch(() => {}); // awaited below; a failure before then must not go unhandled
  await step('type "health" into #entity-search', () => page.locator('#entity-search').pressSequentially('health', { delay: 30 }));
  await step('the search answers', async () => {
    const res = await searched;
    if (!res.ok()) throw new Error(`GET /api/entities?q=health answered ${res.status()}`);
  });
  await step('#entity-list shows entities with Health', () => page.waitForFunction(() => {
    const lis = [...document.querySelectorAll('#entity-list li[data-bits]')];
    return lis.length > 0 && lis.every(li => /health/i.test(li.textContent));
  }));
  const listed = await page.locator('#entity-list li[data-bits]').count();
  const first = page.locator('#entity-list li[data-bits]').first();
  const bits = await first.getAttribute('data-bits');
  const firstText = await first.evaluate(li => [...li.children].map(c => c.textContent).join(': '));
  log(`checked: search "health" lists ${listed} entities; first: bits ${bits} "${firstText}"`);

  await step(`click entity ${bits}`, () => first.click());
  const area = page.locator('#entity-detail textarea[data-component="Health"]');
  const apply = page.locator('#entity-detail button.apply[data-component="Health"]');
  const editable = async what => step(`${what}: the Health textarea is loaded and editable`, () => page.waitForFunction(() => {
    const ta = document.querySelector('#entity-detail textarea[data-component="Health"]');
    const btn = document.querySelector('#entity-detail button.apply[data-component="Health"]');
    return ta && ta.value.trim() !== '' && !ta.readOnly && btn && !btn.hidden && !btn.disabled;
  }));
  await editable(`entity ${bits}`);
  const shown = (await area.inputValue()).trim();
  const old = JSON.parse(shown);
  if (!Number.isInteger(old) || old < 0 || old > 255) throw new Error(`Health textarea holds "${shown}", not a u8`);
  const before = await healthInWorld(base, token, bits);
  const comps = await page.locator('#entity-components div.component[data-component]').evaluateAll(ds => ds.map(d => d.dataset.component));
  log(`checked: entity ${bits} detail shows ${comps.join(', ')}; Health textarea "${shown}", world says ${before}`);

  const next = old === 3 ? 2 : 3;
  await step(`set the Health textarea to ${next}`, () => area.fill(String(next)));
  const edited = page.waitForResponse(r => new URL(r.url()).pathname === '/api/edit' && r.request().method() === 'POST');
  edited.catch(() => {}); // awaited below; a failure before then must not go unhandled
  await step('click Apply', () => apply.click());
  await step('POST /api/edit succeeds', async () => {
    const res = await edited;
    if (!res.ok()) throw new Error(`POST /api/edit answered ${res.status()}: ${(await res.text()).slice(0, 300)}`);
  });
  // The edit is applied at the game's next sync, before it is answered; poll briefly anyway.
  let inWorld;
  await step(`the world's Health of ${bits} becomes ${next}`, async () => {
    const until = Date.now() + 5000;
    for (;;) {
      inWorld = await healthInWorld(base, token, bits);
      if (inWorld === next) return;
      if (Date.now() > until) throw new Error(`GET /api/entity?id=${bits} still reports Health ${JSON.stringify(inWorld)}`);
      await new Promise(r => setTimeout(r, 200));
    }
  });
  log(`checked: after Apply, GET /api/entity?id=${bits} reports Health ${inWorld}`);

  const showsNext = what => step(`${what}: the Health textarea shows ${next}`, () => page.waitForFunction(
    v => document.querySelector('#entity-detail textarea[data-component="Health"]')?.value.trim() === v, String(next)));
  await showsNext('after Apply');
  // Close the detail and open the entity again, so the value comes from a fresh load.
  await step('close the detail', async () => {
    await page.locator('#entity-close').click();
    await page.locator('#entity-detail').waitFor({ state: 'hidden' });
  });
  await step(`click entity ${bits} again`, () => page.locator(`#entity-list li[data-bits="${bits}"]`).click());
  await editable('reloaded detail');
  await showsNext('reloaded detail');
  log(`checked: the reloaded detail's Health textarea shows ${next}`);

  const errorBox = await page.locator('#error').evaluate(e => e.hidden ? null : e.textContent);
  if (errorBox) throw new Error(`#error shows: ${errorBox}`);
  log('checked: #error is hidden');
  if (pageErrors.length) throw new Error(`uncaught exceptions in the page: ${pageErrors.join(' | ')}`);
  // A browser asks for /favicon.ico on its own; the page has none and does not ask for it.
  const realConsoleErrors = consoleErrors.filter(m => !m.includes('favicon.ico'));
  if (realConsoleErrors.length) throw new Error(`console errors: ${realConsoleErrors.join(' | ')}`);
  log('checked: no page exceptions, no console errors');

  await step('screenshot', async () => {
    mkdirSync(path.dirname(SHOT), { recursive: true });
    await page.screenshot({ path: SHOT, fullPage: true });
  });
  log(`screenshot: ${SHOT}`);
}

async function cleanup() {
  const closing = context ? context.close().catch(() => {}) : Promise.resolve();
  await Promise.race([closing, new Promise(r => setTimeout(r, 5000))]);
  await killGame();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
}

async function main() {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`overall timeout: not done after ${OVERALL_MS / 1000} s`)), OVERALL_MS);
  });
  let code = 0;
  try {
    await Promise.race([run(), timeout]);
    log('PASS');
  } catch (e) {
    code = 1;
    abandoned = true;
    console.error(`[${secs()}] FAIL: ${e.message}`);
    if (pageErrors.length) console.error(`page exceptions: ${pageErrors.join(' | ')}`);
    if (consoleErrors.length) console.error(`console errors: ${consoleErrors.join(' | ')}`);
    if (gameErr.length) console.error(`the game's stderr (last lines):\n  ${gameErr.join('\n  ')}`);
    if (page) {
      // What the page showed when it failed, beside where the success screenshot goes.
      const failShot = SHOT.replace(/(\.png)?$/, '-failure.png');
      try {
        mkdirSync(path.dirname(failShot), { recursive: true });
        await page.screenshot({ path: failShot, fullPage: true, timeout: 5000 });
        console.error(`failure screenshot: ${failShot}`);
      } catch (_) { /* the browser may be the thing that failed */ }
    }
  } finally {
    clearTimeout(timer);
    await cleanup();
  }
  console.log(`[${secs()}] done, game ${gameExit ? 'stopped (' + gameExit + ')' : 'not started'}`);
  process.exit(interrupted || code);
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    console.error(`interrupted by ${sig}`);
    interrupted = sig === 'SIGINT' ? 130 : 143;
    // main() usually gets there first: the closed browser fails the running step.
    cleanup().finally(() => process.exit(interrupted));
  });
}

main();
