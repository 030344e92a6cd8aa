// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Opens a trace file in speedscope's local build (the npm package's dist/release/index.html,
// from file://, nothing fetched from a network) in headless chromium driven by playwright-core,
// the way a user does: the "Browse" button's file input. Prints as JSON what speedscope then
// shows, for tests/browser/speedscope.sh to assert on:
//
//   { "file": NAME, "title": PAGE TITLE, "ends_with_other_args": ends whose args differ from
//     their begin's (speedscope ends the slice all the same),
//     "profiles": [ { "name": the name in the toolbar (speedscope's "PROCESS (pid P), THREAD (tid T)"),
//                     "sandwich": [ { "name", "total", "self" (as shown), "total_us", "self_us" } ],
//                     "stacks": { "main;bar;baz": self weight in µs, ... } (from speedscope's own
//                               export of the profile: what it nested where),
//                     "screenshot": PNG of the flame chart (Time Order view),
//                     "pixels": { "coloured": pixels, "colours": colours on >= 100 pixels } } ] }
//
// Exits 2, with speedscope's own words on stderr, when speedscope does not import the file: an
// alert ("Unrecognized format!", "...it's empty!"), an exception in the page, or a warning or
// error it logged while importing (e.g. an end event named after another function than the
// open slice, which speedscope ignores, leaving the slice open).
// Exits 1 on other failures (the page did not come up, a request left file://).
//
// usage: node speedscope.mjs MODULES_DIR CHROMIUM TRACE OUT_DIR
//   MODULES_DIR holds node_modules/ with playwright-core and speedscope (tests/browser/package.json).

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modulesDir, chromiumPath, tracePath, outDir] = process.argv.slice(2);
if (!outDir) {
	console.error('usage: node speedscope.mjs MODULES_DIR CHROMIUM TRACE OUT_DIR');
	process.exit(1);
}
const require = createRequire(path.join(path.resolve(modulesDir), 'resolve-from-here.js'));
const { chromium } = require('playwright-core');
const speedscopeDir = path.dirname(require.resolve('speedscope/package.json'));
const indexUrl = pathToFileURL(path.join(speedscopeDir, 'dist', 'release', 'index.html')).href;

// A bound for conditions that are normally met in well under a second; reaching it means the
// test already failed.
const BOUND_MS = 60000;

function die(code, msg) {
	console.error(msg);
	process.exit(code);
}

async function waitUntil(cond, what) {
	const end = Date.now() + BOUND_MS;
	for (;;) {
		if (await cond())
			return;
		if (Date.now() > end)
			throw new Error(`gave up waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 20));
	}
}

// speedscope's TimeFormatter: "40.00µs (40%)", "1.50ms", "2.00s", "1.50min".
const UNIT_US = { ns: 1e-3, 'µs': 1, ms: 1e3, s: 1e6, min: 60e6 };
function toMicros(text) {
	const m = /^\s*([0-9.]+)\s*(ns|µs|ms|s|min)\b/.exec(text);
	return m ? Number(m[1]) * UNIT_US[m[2]] : null;
}

// Folded stacks ("a;b;c" -> self weight) of one evented profile of speedscope's export.
function foldStacks(profile, frames) {
	const stacks = {};
	const open = [];
	let last = profile.startValue;
	for (const ev of profile.events) {
		if (open.length) {
			const key = open.map((f) => frames[f].name).join(';');
			stacks[key] = (stacks[key] || 0) + (ev.at - last);
		}
		last = ev.at;
		if (ev.type === 'O')
			open.push(ev.frame);
		else if (open.pop() !== ev.frame)
			throw new Error(`export of "${profile.name}": frame ${ev.frame} closed out of order`);
	}
	for (const k of Object.keys(stacks))
		stacks[k] = Math.round(stacks[k] * 1000) / 1000;
	return stacks;
}

// Pixels of the flame chart (below the 20-pixel toolbar) that are not white, grey or black:
// the slices' colours. Decoded by a canvas in a second page.
async function pixelStats(context, png) {
	const page = await context.newPage();
	try {
		await page.setContent('<canvas id="c"></canvas>');
		return await page.evaluate(async (b64) => {
			const img = new Image();
			img.src = 'data:image/png;base64,' + b64;
			await img.decode();
			const c = document.getElementById('c');
			c.width = img.width;
			c.height = img.height;
			const g = c.getContext('2d');
			g.drawImage(img, 0, 0);
			const d = g.getImageData(0, 20, img.width, img.height - 20).data;
			const counts = new Map();
			let coloured = 0;
			for (let i = 0; i < d.length; i += 4) {
				const r = d[i], gr = d[i + 1], b = d[i + 2];
				if (Math.max(r, gr, b) - Math.min(r, gr, b) < 12)
					continue;
				coloured++;
				const k = (r << 16) | (gr << 8) | b;
				counts.set(k, (counts.get(k) || 0) + 1);
			}
			let colours = 0;
			for (const n of counts.values())
				if (n >= 100)
					colours++;
			return { coloured, colours, width: img.width, height: img.height };
		}, png.toString('base64'));
	} finally {
		await page.close();
	}
}

async function toolbarName(page) {
	// The profile's name sits between the view tabs and the Export/Import buttons: with one
	// profile as text of the toolbar, with several in a span followed by "(i/n)".
	const text = await page.evaluate(() => {
		const tabs = [...document.querySelectorAll('div')].find((d) =>
			/^🕰\s*Time Order/.test(d.innerText || '') && d.parentElement);
		return tabs ? tabs.parentElement.innerText : '';
	});
	return text;
}

async function sandwichRows(page) {
	return page.evaluate(() => {
		const rows = [];
		for (const tr of document.querySelectorAll('tr')) {
			const td = tr.querySelectorAll('td');
			// The sandwich table: Total, Self, then the name after a colour swatch.
			if (td.length !== 3 || !td[2].querySelector('span[style*="background-color"]'))
				continue;
			rows.push({ name: td[2].innerText.trim(), total: td[0].innerText.trim(),
				self: td[1].innerText.trim() });
		}
		return rows;
	});
}

async function main() {
	const browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
	const context = await browser.newContext({ viewport: { width: 1280, height: 1600 },
		acceptDownloads: true });
	const offline = [];
	await context.route('**/*', (route) => {
		const url = route.request().url();
		if (url.startsWith('file:'))
			return route.continue();
		offline.push(url);
		return route.abort();
	});
	const page = await context.newPage();
	const failures = [];
	let imported = false;
	page.on('dialog', (d) => {
		failures.push(`alert: ${d.message()}`);
		d.dismiss().catch(() => {});
	});
	page.on('pageerror', (e) => failures.push(`exception: ${e.message}`));
	let argsEnds = 0;
	page.on('console', (m) => {
		const t = m.text();
		if (m.type() === 'timeEnd' && t.startsWith('import:'))
			imported = true;
		// An end of the same name whose args differ from its begin's: speedscope ends the
		// open slice (its frame is the begin's name and args), as the format's E may carry
		// args of its own. Counted, not a failure.
		else if (m.type() === 'warning' && / was on the top of the stack\. Ending .* instead\.$/s.test(t))
			argsEnds++;
		// The GPU's own notes ("[.WebGL-0x...]GL Driver Message") are not speedscope's.
		else if ((m.type() === 'warning' || m.type() === 'error') && !t.startsWith('[.WebGL-'))
			failures.push(`${m.type()}: ${t}`);
	});

	await page.goto(indexUrl);
	const input = page.locator('input[type=file]');
	await input.waitFor({ state: 'attached', timeout: BOUND_MS });
	await input.setInputFiles(tracePath);
	const title = `${path.basename(tracePath)} - speedscope`;
	await waitUntil(async () => failures.length > 0 ||
		(imported && (await page.title()) === title), `speedscope to import ${tracePath}`);
	if (failures.length)
		die(2, `speedscope did not import ${tracePath}:\n  ${failures.join('\n  ')}`);

	// speedscope's own export of what it imported (Export button: a download).
	const [download] = await Promise.all([page.waitForEvent('download', { timeout: BOUND_MS }),
		page.getByText('Export').click()]);
	const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
	const n = exported.profiles.length;
	const base = path.basename(tracePath).replace(/\.json$/, '');
	const result = { file: path.basename(tracePath), title: await page.title(),
		ends_with_other_args: argsEnds, profiles: [] };

	for (let i = 0; i < n; i++) {
		const ep = exported.profiles[i];
		const nth = n > 1 ? ` (${i + 1}/${n})` : '';
		if (i > 0)
			await page.keyboard.press('n');
		await page.getByText('Time Order').click();
		await waitUntil(async () => (await toolbarName(page)).includes(ep.name + nth),
			`the toolbar to show profile ${i + 1}/${n} "${ep.name}"`);
		// The flame chart is drawn (one frame paints it whole) when it shows two
		// colours, or one for a profile of one function, on 1 % of the picture:
		// screenshots until then, within the bound; a chart that stays blank is
		// reported as it looks, and speedscope.sh's checks judge it.
		const want = Math.min(2, new Set(Object.keys(foldStacks(ep, exported.shared.frames))
			.flatMap((s) => s.split(';'))).size);
		const shot = path.join(outDir, `${base}.${i + 1}.png`);
		const end = Date.now() + BOUND_MS;
		let pixels;
		for (;;) {
			await page.evaluate(() => new Promise((r) =>
				requestAnimationFrame(() => requestAnimationFrame(r))));
			const png = await page.screenshot({ path: shot, clip: { x: 0, y: 0,
				width: 1280, height: 720 } });
			pixels = await pixelStats(context, png);
			if ((pixels.colours >= want &&
			     pixels.coloured * 100 >= pixels.width * pixels.height) || Date.now() > end)
				break;
			await new Promise((r) => setTimeout(r, 50));
		}

		await page.getByText('Sandwich').click();
		await waitUntil(async () => (await sandwichRows(page)).length > 0,
			`the sandwich table of "${ep.name}"`);
		const rows = (await sandwichRows(page)).map((r) => ({ ...r,
			total_us: toMicros(r.total), self_us: toMicros(r.self) }));
		result.profiles.push({ name: ep.name, sandwich: rows,
			stacks: foldStacks(ep, exported.shared.frames), screenshot: shot, pixels });
	}
	if (failures.length)
		die(2, `speedscope complained showing ${tracePath}:\n  ${failures.join('\n  ')}`);
	if (offline.length)
		die(1, `the page asked for more than its files: ${offline.join(' ')}`);
	await browser.close();
	console.log(JSON.stringify(result, null, 1));
}

main().catch((e) => die(1, `speedscope.mjs: ${e.stack || e}`));
