// The inspector's page script: polls the game's API and draws what it answers.
'use strict';
// The token comes in the address the game printed. It is kept for this tab only (so a
// reload works), sent in a header rather than in URLs, and taken out of the address bar,
// where it would show in screenshots, the history and links passed on.
const TOKEN_KEY = 'ripple-inspector-token';
const TOKEN = (() => {
  const fromUrl = new URLSearchParams(location.search).get('token');
  let token = fromUrl || '';
  try {
    if (fromUrl) sessionStorage.setItem(TOKEN_KEY, fromUrl);
    else token = sessionStorage.getItem(TOKEN_KEY) || '';
  } catch (_) { /* storage refused: the token lives as long as the page */ }
  if (fromUrl !== null) history.replaceState(null, '', location.pathname + location.hash);
  return token;
})();
const RING = 240, WINDOW = 120, TABLES_TOP = 50, PAGE = 100;
const C = { write: '#5fb3ff', add: '#5fd38a', rem: '#ff6b6b', event: '#c792ea' };
const PALETTE = ['#5fb3ff', '#f0b54a', '#5fd38a', '#ff6b6b', '#c792ea', '#4fd1c5', '#f78c6c', '#a3be8c', '#e5c07b', '#82aaff'];

const $ = id => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}
// Only touch the DOM when the text really changed; most polls change nothing.
function setText(node, text) { if (node.textContent !== text) node.textContent = text; }
const isNum = v => typeof v === 'number' && isFinite(v);
const fmtInt = v => isNum(v) ? Math.round(v).toLocaleString('en-US') : '–';
const fmtUs = ns => isNum(ns) ? (ns / 1000).toFixed(ns < 10000 ? 2 : 1) + ' µs' : '–';
const fmtMs = ns => isNum(ns) ? (ns / 1e6).toFixed(2) + ' ms' : '–';
function fmtBytes(b) {
  if (!isNum(b)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (b >= 1024 && i < units.length - 1) { b /= 1024; i++; }
  return (i ? b.toFixed(b < 10 ? 2 : 1) : String(b)) + ' ' + units[i];
}
const obj = v => (v && typeof v === 'object' && !Array.isArray(v)) ? v : {};
const arr = v => Array.isArray(v) ? v : [];

// One message per action so a later success of that action clears only its own message.
const errors = new Map();
function setError(action, msg) {
  if (msg == null) { if (!errors.delete(action)) return; } else errors.set(action, String(msg));
  const box = $('error');
  box.textContent = [...errors].map(([a, m]) => a + ': ' + m).join('\n');
  box.hidden = errors.size === 0;
}

class ApiError extends Error { constructor(status, msg) { super(msg); this.status = status; } }

// body is raw JSON text, so user-typed numbers (e.g. u64 fields) reach the server unrounded.
async function api(path, params, body) {
  const q = new URLSearchParams(params || {});
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 8000); // a hung game must not wedge the single-flight polls
  try {
    const opts = { signal: ctl.signal, cache: 'no-store', headers: { 'X-Ripple-Token': TOKEN } };
    if (body !== undefined) {
      Object.assign(opts, { method: 'POST', body });
      opts.headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(path + '?' + q, opts);
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { /* reported below */ }
    if (!res.ok) {
      const msg = data && typeof data.error === 'string' ? data.error : 'HTTP ' + res.status + (text ? ': ' + text.slice(0, 200) : '');
      throw new ApiError(res.status, msg);
    }
    if (data === null && text) throw new ApiError(res.status, 'response is not JSON');
    return { data: obj(data), text };
  } catch (e) {
    if (e.name === 'AbortError') throw new Error('request timed out');
    throw e;
  } finally { clearTimeout(timer); }
}

// Component values may hold integers beyond 2^53; JSON.parse would round them, so the detail
// view re-indents the server's own text instead. scan() finds value spans; reindent() formats one.
function scan(text) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  function node() {
    ws();
    const start = i, c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']', kids = [];
      i++; ws();
      if (text[i] === close) { i++; return { start, end: i, kids }; }
      for (;;) {
        let key = null;
        if (c === '{') {
          const k = node(); key = JSON.parse(text.slice(k.start, k.end)); ws();
          if (text[i++] !== ':') throw new SyntaxError('expected : at ' + (i - 1));
        }
        const v = node(); v.key = key; kids.push(v); ws();
        const d = text[i++];
        if (d === close) return { start, end: i, kids };
        if (d !== ',') throw new SyntaxError('unexpected character at ' + (i - 1));
      }
    }
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      return { start, end: i };
    }
    while (i < text.length && !' \t\r\n,]}:'.includes(text[i])) i++;
    if (i === start) throw new SyntaxError('unexpected end of JSON');
    return { start, end: i };
  }
  return node();
}
const child = (n, key) => n && n.kids ? n.kids.find(k => k.key === key) : undefined;
function reindent(src) {
  let out = '', depth = 0, i = 0;
  const nl = () => '\n' + '  '.repeat(depth);
  while (i < src.length) {
    const c = src[i];
    if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1); i = j + 1;
    } else if (c === '{' || c === '[') {
      let j = i + 1;
      while (' \t\r\n'.includes(src[j] || 'x')) j++;
      if (src[j] === (c === '{' ? '}' : ']')) { out += c + src[j]; i = j + 1; continue; }
      depth++; out += c + nl(); i++;
    } else if (c === '}' || c === ']') { depth--; out += nl() + c; i++; }
    else if (c === ',') { out += ',' + nl(); i++; }
    else if (c === ':') { out += ': '; i++; }
    else { if (!' \t\r\n'.includes(c)) out += c; i++; }
  }
  return out;
}

// ---------------------------------------------------------------- state and polling
const S = { frames: [], latest: 0, lastNewAt: 0, liveOk: false, ov: {}, writes: false };

async function pollLive() {
  try {
    const { data } = await api('/api/live', { since: S.latest });
    setError('live', null);
    S.liveOk = true;
    const latest = data.latest;
    // A frame counter that went backwards means the game restarted: start a fresh ring.
    if (isNum(latest) && latest < S.latest) { S.frames = []; S.latest = 0; schedule(); }
    const fresh = arr(data.frames).filter(f => f && isNum(f.frame) && f.frame > S.latest).sort((a, b) => a.frame - b.frame);
    if (fresh.length) {
      S.frames.push(...fresh);
      if (S.frames.length > RING) S.frames.splice(0, S.frames.length - RING);
      S.latest = fresh[fresh.length - 1].frame;
      S.lastNewAt = Date.now();
      schedule();
    } else if (isNum(latest) && latest > S.latest) S.latest = latest;
  } catch (e) {
    S.liveOk = false;
    setError('live', e.message);
  }
  updateStatus();
  setTimeout(pollLive, 250); // chained, not setInterval, so two live requests never overlap
}

function updateStatus() {
  const live = S.liveOk && Date.now() - S.lastNewAt < 2000;
  const s = $('status');
  setText(s, live ? 'live' : 'waiting for the game');
  s.className = 'badge ' + (live ? 'live' : 'waiting');
}

async function pollOverview() {
  try {
    const { data } = await api('/api/overview');
    setError('overview', null);
    S.ov = data;
    renderOverview(data);
  } catch (e) { setError('overview', e.message); }
  setTimeout(pollOverview, 2000);
}

function renderOverview(ov) {
  setWrites(ov.writes === true);
  const comps = arr(ov.components).filter(c => c && typeof c.name === 'string');
  for (const c of comps) if (c.tracked) changeRow(c.name);
  const untracked = comps.filter(c => !c.tracked).map(c => c.name);
  setText($('untracked'), 'not tracked: ' + untracked.join(', '));
  $('untracked').hidden = untracked.length === 0;
  for (const ev of arr(ov.events)) {
    if (!ev || typeof ev.name !== 'string') continue;
    const r = eventRow(ev.name);
    setText(r.sent, fmtInt(ev.sent)); setText(r.readable, fmtInt(ev.readable)); setText(r.dropped, fmtInt(ev.dropped));
    r.dropped.classList.toggle('r', ev.dropped > 0);
    r.canvas.title = `sent ${fmtInt(ev.sent)}, waiting ${fmtInt(ev.waiting)}, readable ${fmtInt(ev.readable)}, dropped ${fmtInt(ev.dropped)}`;
  }
  renderTables();
  const m = obj(ov.memory);
  for (const [id, key] of [['mem-values', 'values_bytes'], ['mem-tracking', 'tracking_bytes'], ['mem-entities', 'entities_bytes'],
    ['mem-backlog', 'backlog_bytes'], ['mem-total', 'total_bytes']]) {
    setText($(id), fmtBytes(m[key]));
    $(id).title = isNum(m[key]) ? fmtInt(m[key]) + ' bytes' : '';
  }
  schedule();
}

function setWrites(on) {
  S.writes = on;
  const w = $('writes');
  setText(w, on ? 'writes on' : 'read-only');
  w.classList.toggle('on', on);
  for (const e of document.querySelectorAll('.write-only')) e.hidden = !on;
  $('despawn').hidden = !on || !D.bits || D.gone;
  for (const b of D.blocks.values()) if (b.ta) { b.ta.readOnly = !on || !b.editable || D.gone; b.btn.hidden = !on || D.gone; }
}

// ---------------------------------------------------------------- drawing
let rafPending = false;
function schedule() { if (!rafPending) { rafPending = true; requestAnimationFrame(draw); } }
addEventListener('resize', schedule);

function fitCanvas(c) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(c.clientWidth * dpr)), h = Math.max(1, Math.round(c.clientHeight * dpr));
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
  const g = c.getContext('2d');
  g.clearRect(0, 0, w, h);
  return { g, w, h, dpr };
}

// Newest sample sits at the right edge and slots are fixed, so the trace scrolls steadily
// instead of stretching while the ring fills. null values leave a gap, unless
// `opts.connect` joins the points across them; `opts.dots` marks each point. `opts.shade`
// (one value per slot, or null) is drawn as a faint bar behind the traces: a sample's peak.
function plot(canvas, series, colours, widths, opts = {}) {
  const { g, w, h, dpr } = fitCanvas(canvas);
  const shade = opts.shade || [];
  let n = 0, max = 0;
  for (const s of [...series, shade]) { n = Math.max(n, s.length); for (const v of s) if (v != null && v > max) max = v; }
  const scale = max > 0 ? max : 1, pad = 2 * dpr, step = w / (WINDOW - 1);
  const x = (len, i) => w - (len - 1 - i) * step, y = v => h - pad - (v / scale) * (h - 2 * pad);
  g.fillStyle = 'rgba(216, 222, 230, 0.16)';
  shade.forEach((v, i) => {
    if (v != null && v > 0) g.fillRect(x(shade.length, i) - step / 2, y(v), Math.max(step, dpr), h - pad - y(v));
  });
  series.forEach((s, k) => {
    g.strokeStyle = g.fillStyle = colours[k]; g.lineWidth = (widths[k] || 1) * dpr;
    g.beginPath();
    let pen = false;
    s.forEach((v, i) => {
      if (v == null) { if (!opts.connect) pen = false; return; }
      if (pen) g.lineTo(x(s.length, i), y(v)); else g.moveTo(x(s.length, i), y(v));
      pen = true;
    });
    g.stroke();
    if (opts.dots) s.forEach((v, i) => {
      if (v == null) return;
      g.beginPath(); g.arc(x(s.length, i), y(v), 2 * dpr, 0, 2 * Math.PI); g.fill();
    });
  });
  canvas.dataset.points = String(n);
  canvas.dataset.max = String(max);
  return max;
}

// The larger of a sample's peak numbers that were counted (null where none were).
function peakOf(values) {
  const counted = arr(values).filter(isNum);
  return counted.length ? Math.max(...counted) : null;
}

// One row of a sparkline table: a name, its numbers (each kept on the row under its
// key), the sparkline, and the sparkline's max.
function sparkRow(rows, container, empty, attr, name, numbers) {
  let r = rows.get(name);
  if (r) return r;
  r = { row: el('div', 'spark-row'), name: el('span', 'name', name), canvas: el('canvas', 'sparkline'),
        max: el('span', 'num max muted') };
  for (const [key, cls, text] of numbers) r[key] = el('span', cls, text);
  r.row.dataset[attr] = name;
  r.name.title = name;
  r.canvas.dataset[attr] = name;
  r.row.append(r.name, ...numbers.map(([key]) => r[key]), r.canvas, r.max);
  $(container).append(r.row);
  $(empty).hidden = true;
  rows.set(name, r);
  return r;
}

const changeRows = new Map();
const changeRow = name => sparkRow(changeRows, 'changes-rows', 'changes-empty', 'component', name,
  [['w', 'num w', '0'], ['a', 'num a', '0'], ['rm', 'num r', '0']]);

const eventRows = new Map();
const eventRow = name => sparkRow(eventRows, 'events-rows', 'events-empty', 'event', name,
  [['sent', 'num', '–'], ['readable', 'num', '–'], ['dropped', 'num', '–']]);

const sysRows = new Map();
function sysRow(name) {
  let r = sysRows.get(name);
  if (r) return r;
  const colour = PALETTE[sysRows.size % PALETTE.length];
  const label = tag => { const e = el(tag), sw = el('span', 'swatch'); sw.style.background = colour; e.append(sw, name); return e; };
  $('systems-legend').append(label('li'));
  r = { colour, tr: el('tr'), latest: el('td', 'num', '–'), mean: el('td', 'num', '–'), max: el('td', 'num', '–'),
        timed: el('td', 'num', '–') };
  r.tr.dataset.system = name;
  r.tr.append(label('td'), r.latest, r.mean, r.max, r.timed);
  $('systems-body').append(r.tr);
  sysRows.set(name, r);
  return r;
}

function draw() {
  rafPending = false;
  const win = S.frames.slice(-WINDOW), last = win[win.length - 1], ov = S.ov, cost = obj(ov.cost);
  const frame = Math.max(S.latest, isNum(ov.frame) ? ov.frame : 0);
  setText($('frame'), frame ? fmtInt(frame) : '–');
  setText($('entity-count'), fmtInt(last && isNum(last.entities) ? last.entities : ov.entities));
  // A sample's cost is what arming and counting took; per frame is all samples'
  // cost spread over every frame watched (the game's real share).
  const lastCost = last && isNum(last.cost_ns) ? last.cost_ns : undefined;
  const frameNs = last && isNum(last.frame_ns) ? last.frame_ns : undefined;
  setText($('cost'), `inspector ${fmtUs(lastCost)} a sample / ${fmtUs(cost.per_frame_ns)} per frame · frame ${fmtMs(frameNs)}`);
  $('cost').title = isNum(cost.per_frame_ns) && frameNs > 0
    ? `${(100 * cost.per_frame_ns / frameNs).toFixed(3)}% of the frame; ${cost.samples} samples over ${cost.watched_frames} frames watched`
    : '';

  const peak = f => obj(f.peak);
  const frameSeries = win.map(f => isNum(f.frame_ns) ? f.frame_ns : null);
  const frameShade = win.map(f => isNum(peak(f).frame_ns) ? peak(f).frame_ns : null);
  setText($('frame-sampled'), fmtMs(frameNs));
  setText($('frame-longest'), fmtMs(last ? peak(last).frame_ns : undefined));
  const every = last && isNum(peak(last).clock_every) ? peak(last).clock_every : 1;
  $('frame-longest').title = !last ? '' : every > 1
    ? `no frame of the ${fmtInt(peak(last).frames)} since the previous sample took longer: frames this short are `
      + `timed ${fmtInt(every)} at a time, and this is the longest such run`
    : `the longest of the ${fmtInt(peak(last).frames)} frames since the previous sample`;
  setText($('frame-max'), 'max ' + fmtMs(plot($('frame-chart'), [frameSeries], [C.write], [1.5], { shade: frameShade })));

  for (const f of win) for (const k of Object.keys(obj(f.changes))) changeRow(k);
  for (const [name, r] of changeRows) {
    const cur = arr(last && obj(last.changes)[name]);
    const v = [0, 1, 2].map(i => isNum(cur[i]) ? cur[i] : 0);
    setText(r.w, fmtInt(v[0])); setText(r.a, fmtInt(v[1])); setText(r.rm, fmtInt(v[2]));
    r.row.classList.toggle('active', v[0] + v[1] + v[2] > 0);
    const series = [1, 2, 0].map(i => win.map(f => { const c = arr(obj(f.changes)[name]); return isNum(c[i]) ? c[i] : 0; }));
    const shade = win.map(f => peakOf(obj(peak(f).changes)[name]));
    const top = last ? arr(obj(peak(last).changes)[name]) : [];
    r.canvas.title = last ? `since the previous sample (${fmtInt(peak(last).frames)} frames), no frame wrote more than `
      + `${isNum(top[0]) ? fmtInt(top[0]) : '(not counted)'}, added more than ${isNum(top[1]) ? fmtInt(top[1]) : '(not counted)'}, `
      + `removed more than ${fmtInt(top[2])}` : '';
    // written is drawn last so it stays on top of the thinner added/removed traces
    setText(r.max, 'max ' + fmtInt(plot(r.canvas, series, [C.add, C.rem, C.write], [1, 1, 1.5], { shade })));
  }

  for (const f of win) for (const k of Object.keys(obj(f.events))) eventRow(k);
  for (const [name, r] of eventRows) {
    const series = win.map(f => { const v = obj(f.events)[name]; return isNum(v) ? v : 0; });
    const shade = win.map(f => { const v = obj(peak(f).events)[name]; return isNum(v) ? v : null; });
    setText(r.max, 'max ' + fmtInt(plot(r.canvas, [series], [C.event], [1.5], { shade })));
  }

  // A system's point is a run the profiler timed: a sample shows one only where the
  // count of timed runs moved since the sample before it.
  for (const f of win) for (const k of Object.keys(obj(f.systems))) sysRow(k);
  const names = [...sysRows.keys()];
  const offset = S.frames.length - win.length;
  const timed = (n, i) => {
    const now = obj(obj(win[i].systems)[n]), before = offset + i > 0 ? obj(obj(S.frames[offset + i - 1].systems)[n]) : {};
    return isNum(now.ns) && isNum(now.measured) && now.measured !== before.measured ? now.ns : null;
  };
  const sysSeries = names.map(n => win.map((_, i) => timed(n, i)));
  const sysMax = plot($('systems-chart'), sysSeries, names.map(n => sysRows.get(n).colour), names.map(() => 1.5),
    { connect: true, dots: true });
  setText($('systems-max'), names.length ? 'max ' + fmtUs(sysMax) : 'no systems reported');
  names.forEach((n, k) => {
    const r = sysRows.get(n), vals = sysSeries[k].filter(v => v != null), now = last ? obj(obj(last.systems)[n]) : {};
    setText(r.latest, fmtUs(now.ns));
    setText(r.mean, vals.length ? fmtUs(vals.reduce((a, b) => a + b, 0) / vals.length) : '–');
    setText(r.max, vals.length ? fmtUs(Math.max(...vals)) : '–');
    setText(r.timed, isNum(now.measured) && isNum(now.runs) ? `${fmtInt(now.measured)} / ${fmtInt(now.runs)}` : '–');
  });
}

// ---------------------------------------------------------------- tables
let showAllTables = false, tablesSig = '';
function renderTables() {
  const all = arr(S.ov.tables).filter(t => t && typeof t === 'object').sort((a, b) => (b.rows || 0) - (a.rows || 0));
  const shown = showAllTables ? all : all.slice(0, TABLES_TOP);
  const rows = all.reduce((s, t) => s + (isNum(t.rows) ? t.rows : 0), 0);
  setText($('tables-summary'), `${fmtInt(all.length)} tables · ${fmtInt(rows)} rows`);
  const toggle = $('tables-toggle');
  toggle.hidden = all.length <= TABLES_TOP;
  setText(toggle, showAllTables ? `show top ${TABLES_TOP}` : `show all (${fmtInt(all.length)})`);
  // Rebuild only when something visible changed; overview arrives every 2 s but tables rarely move.
  const sig = JSON.stringify(shown.map(t => [t.id, t.rows, t.components]));
  if (sig === tablesSig) return;
  tablesSig = sig;
  const frag = document.createDocumentFragment();
  for (const t of shown) {
    const tr = el('tr');
    tr.dataset.table = String(t.id);
    tr.append(el('td', 'num', fmtInt(t.rows)), el('td', null, arr(t.components).join(', ') || '(no components)'), el('td', 'num muted', String(t.id ?? '?')));
    frag.append(tr);
  }
  $('tables-body').replaceChildren(frag);
}
$('tables-toggle').addEventListener('click', () => { showAllTables = !showAllTables; renderTables(); });

// ---------------------------------------------------------------- entity list
const E = { q: '', offset: 0, busy: false, again: false };
async function loadEntities() {
  if (E.busy) { E.again = true; return; } // latest query wins once the running one answers
  E.busy = true;
  try {
    const { data } = await api('/api/entities', { q: E.q, offset: E.offset, limit: PAGE });
    setError('entities', null);
    const list = arr(data.entities), total = isNum(data.total) ? data.total : list.length;
    if (!list.length && E.offset > 0 && total > 0) { // the page emptied under us (despawns): jump to the last page
      E.offset = Math.max(0, Math.floor((total - 1) / PAGE) * PAGE);
      E.again = true;
      return;
    }
    const frag = document.createDocumentFragment();
    for (const e of list) {
      if (!e || e.bits == null) continue;
      const li = el('li');
      li.dataset.bits = String(e.bits);
      li.tabIndex = 0;
      li.classList.toggle('selected', li.dataset.bits === D.bits);
      li.append(el('span', 'eid', String(e.id ?? e.bits)), el('span', 'ecomps', arr(e.components).join(', ')));
      li.title = 'bits ' + e.bits;
      frag.append(li);
    }
    $('entity-list').replaceChildren(frag);
    // A search by a sparse component's name looks at a bounded number of entities: its
    // total is then a lower bound, and says so.
    const of = data.complete === false ? `at least ${fmtInt(total)} (the search stopped early)` : fmtInt(total);
    setText($('entity-page'), list.length ? `${fmtInt(E.offset + 1)}–${fmtInt(E.offset + list.length)} of ${of}` : 'no matching entities');
    $('entity-prev').disabled = E.offset === 0;
    $('entity-next').disabled = E.offset + list.length >= total;
  } catch (e) { setError('entities', e.message); }
  finally {
    E.busy = false;
    if (E.again) { E.again = false; loadEntities(); }
  }
}
let searchTimer = 0;
$('entity-search').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => { E.q = $('entity-search').value.trim(); E.offset = 0; loadEntities(); }, 200);
});
$('entity-prev').addEventListener('click', () => { E.offset = Math.max(0, E.offset - PAGE); loadEntities(); });
$('entity-next').addEventListener('click', () => { E.offset += PAGE; loadEntities(); });
$('entity-list').addEventListener('click', ev => { const li = ev.target.closest('li[data-bits]'); if (li) selectEntity(li.dataset.bits); });
$('entity-list').addEventListener('keydown', ev => {
  const li = ev.target.closest('li[data-bits]');
  if (li && (ev.key === 'Enter' || ev.key === ' ')) { ev.preventDefault(); selectEntity(li.dataset.bits); }
});

// ---------------------------------------------------------------- entity detail
// gen invalidates answers for a previously selected entity; seq orders requests so that
// "overwrite after Apply" is honoured only by an answer requested after the edit landed.
const D = { bits: null, gone: false, busy: false, again: false, gen: 0, seq: 0, blocks: new Map(), writing: false };

function selectEntity(bits) {
  D.bits = String(bits); D.gen++; D.gone = false;
  D.blocks.clear();
  $('entity-components').replaceChildren();
  setText($('entity-detail-id'), '…'); setText($('entity-detail-bits'), 'bits ' + D.bits); setText($('entity-state'), '');
  $('entity-detail').hidden = false;
  $('despawn').hidden = !S.writes;
  for (const li of $('entity-list').children) li.classList.toggle('selected', li.dataset.bits === D.bits);
  setError('entity', null);
  loadEntity();
}

function closeEntity() {
  D.bits = null; D.gen++; D.blocks.clear();
  $('entity-components').replaceChildren();
  $('entity-detail').hidden = true;
  for (const li of $('entity-list').children) li.classList.remove('selected');
  setError('entity', null);
}
$('entity-close').addEventListener('click', closeEntity);

function markGone(why) {
  D.gone = true;
  setText($('entity-state'), why);
  $('despawn').hidden = true;
  for (const b of D.blocks.values()) if (b.ta) { b.ta.readOnly = true; b.btn.hidden = true; }
}

async function loadEntity() {
  if (!D.bits) return;
  if (D.busy) { D.again = true; return; }
  D.busy = true;
  const gen = D.gen, seq = ++D.seq;
  try {
    const { data, text } = await api('/api/entity', { id: D.bits });
    if (gen !== D.gen) return;
    setError('entity', null);
    renderEntity(data, text, seq);
  } catch (e) {
    if (gen !== D.gen) return;
    if (e.status === 404 || e.status === 410) { setError('entity', null); markGone('no longer exists'); }
    else setError('entity', e.message);
  } finally {
    D.busy = false;
    if (D.again) { D.again = false; loadEntity(); }
  }
}
setInterval(() => { if (D.bits && !D.gone && !D.busy && !document.hidden) loadEntity(); }, 1000);

function renderEntity(data, text, seq) {
  setText($('entity-detail-id'), String(data.id ?? '?'));
  if (data.bits != null) setText($('entity-detail-bits'), 'bits ' + data.bits);
  let spans = null;
  try { const list = child(scan(text), 'components'); spans = list && list.kids ? list.kids : null; }
  catch (_) { spans = null; } // fall back to the JSON.parse'd values below
  const seen = new Set();
  arr(data.components).forEach((c, i) => {
    if (!c || typeof c.name !== 'string') return;
    seen.add(c.name);
    // null value means no serialiser; a serialisable value that is literally null still comes with editable: true
    const serialisable = !(c.value == null && c.editable !== true);
    let b = D.blocks.get(c.name);
    if (b && b.serialisable !== serialisable) { b.div.remove(); D.blocks.delete(c.name); b = null; }
    if (!b) b = makeBlock(c.name, serialisable);
    b.editable = c.editable === true;
    if (!b.ta) return;
    const span = spans && spans[i] && child(spans[i], 'value');
    updateBlock(b, span ? reindent(text.slice(span.start, span.end)) : JSON.stringify(c.value ?? null, null, 2), seq);
  });
  for (const [name, b] of D.blocks) if (!seen.has(name)) { b.div.remove(); D.blocks.delete(name); }
  if (!seen.size) setText($('entity-state'), 'no components');
  else if (!D.gone) setText($('entity-state'), '');
}

function makeBlock(name, serialisable) {
  const b = { name, serialisable, div: el('div', 'component'), ta: null, btn: null, note: null, reset: null,
              server: '', loaded: '', flash: '', modified: false, forceFrom: 0, editable: false };
  b.div.dataset.component = name;
  const head = el('div', 'chead');
  head.append(el('span', 'cname', name));
  if (!serialisable) head.append(el('span', 'muted', '(not serialisable)'));
  b.div.append(head);
  if (serialisable) {
    b.note = el('span', 'note muted');
    b.reset = el('button', 'reset', 'Reset');
    b.reset.hidden = true;
    b.btn = el('button', 'apply', 'Apply');
    b.btn.dataset.component = name;
    b.btn.hidden = !S.writes;
    b.ta = el('textarea');
    b.ta.dataset.component = name;
    b.ta.spellcheck = false;
    b.ta.readOnly = true;
    head.append(b.note, b.reset, b.btn);
    b.div.append(b.ta);
    b.ta.addEventListener('input', () => { b.modified = b.ta.value !== b.loaded; refreshNote(b); });
    b.ta.addEventListener('keydown', ev => { if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); applyEdit(b); } });
    b.reset.addEventListener('click', () => { b.modified = false; setArea(b, b.server); refreshNote(b); });
    b.btn.addEventListener('click', () => applyEdit(b));
  }
  $('entity-components').append(b.div);
  D.blocks.set(name, b);
  return b;
}

function setArea(b, text) {
  if (b.ta.value !== text) b.ta.value = text;
  b.loaded = text;
  b.ta.rows = Math.min(16, Math.max(2, text.split('\n').length));
}

function updateBlock(b, text, seq) {
  b.server = text;
  const force = b.forceFrom > 0 && seq >= b.forceFrom;
  if (force) { b.forceFrom = 0; b.modified = false; }
  // never clobber what the user is typing or has typed but not applied
  if (force || (!b.modified && document.activeElement !== b.ta)) setArea(b, text);
  b.ta.readOnly = !S.writes || !b.editable || D.gone;
  b.btn.hidden = !S.writes || D.gone;
  b.btn.disabled = !b.editable || D.writing;
  b.btn.title = b.editable ? '' : 'no deserialiser registered for this component';
  refreshNote(b);
}

function refreshNote(b) {
  b.div.classList.toggle('modified', b.modified);
  b.reset.hidden = !b.modified;
  setText(b.note, b.modified ? (b.server !== b.loaded ? 'edited · live value has changed since' : 'edited, not applied') : (b.flash || ''));
}

async function applyEdit(b) {
  if (!S.writes || !b.editable || D.writing || !D.bits) return;
  const text = b.ta.value;
  try { JSON.parse(text); } catch (e) { setError('edit', `${b.name}: invalid JSON: ${e.message}`); return; }
  // text is known to be one valid JSON value, so splicing it in keeps its numbers exact
  const body = `{"entity":${JSON.stringify(D.bits)},"component":${JSON.stringify(b.name)},"value":${text}}`;
  D.writing = true; b.btn.disabled = true;
  try {
    await api('/api/edit', null, body);
    setError('edit', null);
    b.forceFrom = D.seq + 1;
    b.modified = false;
    b.flash = 'applied';
    setTimeout(() => { b.flash = ''; refreshNote(b); }, 1500);
    refreshNote(b);
    loadEntity();
  } catch (e) { setError('edit', `${b.name}: ${e.message}`); }
  finally { D.writing = false; b.btn.disabled = !b.editable; }
}

$('despawn').addEventListener('click', async () => {
  if (!S.writes || !D.bits || D.writing) return;
  const bits = D.bits, gen = D.gen;
  D.writing = true; $('despawn').disabled = true;
  try {
    await api('/api/despawn', null, JSON.stringify({ entity: bits }));
    setError('despawn', null);
    if (gen === D.gen) markGone('despawned');
    loadEntities();
  } catch (e) { setError('despawn', e.message); }
  finally { D.writing = false; $('despawn').disabled = false; }
});

// ---------------------------------------------------------------- write tools
async function sendJson(action, areaId, path, resultId, onOk) {
  const btn = action === 'spawn' ? $('spawn') : $('command-send');
  if (btn.disabled) return; // one request of each kind at a time
  const text = $(areaId).value;
  try { JSON.parse(text); } catch (e) { setError(action, 'invalid JSON: ' + e.message); return; }
  btn.disabled = true;
  setText($(resultId), 'sending…');
  try {
    const { data } = await api(path, null, text);
    setError(action, null);
    onOk(data);
  } catch (e) { setError(action, e.message); setText($(resultId), 'failed'); }
  finally { btn.disabled = false; }
}
$('spawn').addEventListener('click', () => sendJson('spawn', 'spawn-json', '/api/spawn', 'spawn-result', data => {
  const out = $('spawn-result');
  out.replaceChildren(document.createTextNode(`spawned ${data.id ?? '?'} `));
  if (data.entity != null) {
    const open = el('button', null, 'open');
    open.id = 'spawn-open';
    open.addEventListener('click', () => selectEntity(String(data.entity)));
    out.append(open);
  }
  loadEntities();
}));
$('command-send').addEventListener('click', () => sendJson('command', 'command-json', '/api/command', 'command-result',
  () => setText($('command-result'), 'sent at ' + new Date().toLocaleTimeString())));

// ---------------------------------------------------------------- start
if (!TOKEN) setError('token', 'no token: open the address the game printed (with its ?token=)');
setInterval(updateStatus, 500);
pollLive();
pollOverview();
loadEntities();
