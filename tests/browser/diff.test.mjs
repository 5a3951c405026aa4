// Headless-Chromium checks of tracker diff's pages: the HTML page
// (plugins/diffrender/html.c) and the SVG (plugins/diffrender/svg.c).
//
//   node diff.test.mjs --base BASE.folded --new NEW.folded [--artifacts DIR] \
//       SCENARIO,PAGE...
//
// Each job prints "ok - SCENARIO PAGE" or "not ok - SCENARIO PAGE: the
// first check that failed"; the exit status is 1 when any failed.
// tests/t4002-diff-browser.sh writes the fixtures and turns each line into
// one TAP result. Scenarios (HTML unless said):
//
//   toggles   header and legend; colour by self vs cumulative changes the
//             colour of a frame whose self and cumulative deltas differ;
//             width by new vs baseline changes the widths; details text
//   vanished  the vanished view: widths from the baseline, the vanished
//             frame drawn and listed, the list zooms to it
//   search    "Matched: x%" equals what the folded files say, in either
//             width, zoomed or not
//   zoom      click to zoom (ancestors kept, the rest hidden), reset
//   url       mode, width, view, zoom and search survive a reload
//   hostile   hostile names are shown verbatim and never run
//   svg       the SVG: colours, details, zoom, search
//   changes   the totals line and the "what changed" table: kernel_a the
//             top self increase, kernel_b the top self decrease, and a
//             click on a row zooms the graph to that frame
//   knownanswer  a page of the toy model (examples/climate.c) built twice:
//             the totals grew, and the one self increase is under
//             radiation, at about +100%; no self decrease
//
// The fixture (--normalize none), in samples:
//   base: main;init;parse_args 3, main;init;load_config 7, main;compute;kernel_a 40,
//         main;compute;kernel_a;helper 10, main;compute;kernel_b 25, main;compute 5,
//         main;io;write_out 8, main;old_path 6, other;idle 2          (total 106)
//   new:  the same with kernel_a 60, kernel_b 10, no old_path, and
//         main;brand_new 4                                           (total 109)
// so compute's self is unchanged (5) while its total grows 80 -> 85.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
	check, CheckFailed, exitWith, expectedMatched, near, pageJob, parseArgs, readFolded, runJobs,
	settle,
} from './harness.mjs';

function usage() {
	console.error('usage: node diff.test.mjs --base FILE --new FILE [--artifacts DIR] SCENARIO,PAGE...');
	process.exit(2);
}

const args = parseArgs(['base', 'new', 'artifacts'], usage);
if (!args.pos.length || !args.base || !args.new)
	usage();

// ---- the pages ----

class Page {
	constructor(page, file) {
		this.page = page;
		this.file = file;
		this.answer = null;
		page.on('dialog', (d) => (this.answer === null ? d.dismiss() : d.accept(this.answer)));
	}
	async open(query = '') {
		await this.page.goto(pathToFileURL(this.file).href + query);
		await this.settle();
	}
	async reload() {
		await this.page.reload();
		await this.settle();
	}
	async settle() {
		await settle(this.page);
	}
	async text(id) {
		const el = this.page.locator('#' + id);
		if (!(await el.count()) || !(await el.isVisible()))
			return '';
		return (await el.textContent()).trim();
	}
	async toggle(id) {
		await this.page.click('#' + id);
		await this.settle();
	}
	async shot(name) {
		if (!args.artifacts)
			return;
		fs.mkdirSync(args.artifacts, { recursive: true });
		await this.settle();
		await this.page.screenshot({
			path: path.join(args.artifacts, `${path.basename(this.file)}-${name}.png`),
			fullPage: !this.file.endsWith('.svg'),
		});
	}
	// The frame named `name` as window.tkDiff.find gives it, in page pixels.
	async find(name) {
		return this.page.evaluate((name) => {
			const f = window.tkDiff.find(name);
			if (!f)
				return null;
			const c = document.getElementById('flame').getBoundingClientRect();
			return { ...f, cx: f.x, cy: f.y, x: c.x + f.x, y: c.y + f.y };
		}, name);
	}
	async hover(name) {
		const b = await this.find(name);
		check(b, `frame '${name}' is visible to be hovered`);
		await this.page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
		await this.settle();
	}
	async click(name) {
		const b = await this.find(name);
		check(b, `frame '${name}' is visible to be clicked`);
		await this.page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
		await this.settle();
	}
	async unhover() {
		await this.page.mouse.move(1, 1);
		await this.settle();
	}
	// The canvas pixel near the top left corner of a frame (inside its
	// fill, away from the label), as [r, g, b].
	async pixel(name) {
		const f = await this.find(name);
		check(f, `frame '${name}' is drawn`);
		return this.page.evaluate(([x, y]) => {
			const c = document.getElementById('flame'), dpr = window.devicePixelRatio || 1;
			const d = c.getContext('2d').getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data;
			return [d[0], d[1], d[2], d[3]];
		}, [f.cx + 1.5, f.cy + 1.5]);
	}
	async search(re) {
		await this.page.fill('#search', re || '');
		await this.settle();
	}
	matched() {
		return this.text('matched');
	}
	details() {
		return this.text('details');
	}
	state() {
		return this.page.evaluate(() => window.tkDiff.state());
	}
	params() {
		return new URL(this.page.url()).searchParams;
	}
}

const red = ([r, g, b]) => r === 255 && g < 220 && g === b;
const blue = ([r, g, b]) => b === 255 && r < 220 && r === g;
const grey = ([r, g, b]) => r === 200 && g === 200 && b === 200;
const black = ([r, g, b]) => r === 0 && g === 0 && b === 0;

// ---- scenarios ----

async function toggles(p) {
	const cmp = await p.text('compared');
	check(cmp.includes('new.folded') && cmp.includes('base.folded'), `the header names both profiles ('${cmp}')`);
	check(/normalization: none/.test(cmp), `the header names the normalization ('${cmp}')`);
	const legend = await p.text('legend');
	for (const want of ['-100%', '+100%', 'new (not in baseline)', 'vanished', 'noise'])
		check(legend.includes(want), `the legend says '${want}' ('${legend}')`);
	check((await p.state()).mode === 'self', 'self colouring by default');
	check(await p.page.isChecked('#mode-self'), '#mode-self is checked');
	check(await p.page.isChecked('#width-new'), '#width-new is checked');
	await p.shot('self');

	// compute: self 5 -> 5 (noise), total 80 -> 85 (+6.25%)
	const cs = await p.pixel('compute');
	check(grey(cs), `compute is grey when coloured by self (${cs})`);
	check(red(await p.pixel('kernel_a')), 'kernel_a (+50% self) is red');
	check(blue(await p.pixel('kernel_b')), 'kernel_b (-60% self) is blue');
	check(black(await p.pixel('brand_new')), 'brand_new (not in the baseline) is black');
	const ka = await p.pixel('kernel_a'), kb = await p.pixel('kernel_b');
	await p.hover('kernel_a');
	let d = await p.details();
	check(d === 'kernel_a (self: base 40 samples, new 60 samples, \u0394 +20 samples, +50.00%)', `details of kernel_a by self: '${d}'`);
	await p.hover('compute');
	d = await p.details();
	check(d === 'compute (self: base 5 samples, new 5 samples, \u0394 +0 samples, +0.00%, within noise)', `details of compute by self: '${d}'`);
	await p.hover('brand_new');
	d = await p.details();
	check(d === 'brand_new (self: base 0 samples, new 4 samples, \u0394 +4 samples, +\u221e%, new)', `details of brand_new: '${d}'`);

	await p.toggle('mode-cumulative');
	await p.unhover();
	check((await p.state()).mode === 'cumulative', 'the mode is cumulative after #mode-cumulative');
	const cc = await p.pixel('compute');
	check(red(cc) && cc[1] > 180, `compute is pale red when coloured by cumulative change (${cc})`);
	const ka2 = await p.pixel('kernel_a'), kb2 = await p.pixel('kernel_b');
	// kernel_a total 50 -> 70 (+40%) is paler than its self +50%
	check(red(ka2) && ka2[1] > ka[1], `kernel_a is a paler red by cumulative change (${ka2} vs ${ka})`);
	check(blue(kb2) && kb2[0] === kb[0], `kernel_b (a leaf) keeps its colour (${kb2} vs ${kb})`);
	await p.hover('kernel_a');
	d = await p.details();
	check(d === 'kernel_a (total: base 50 samples, new 70 samples, \u0394 +20 samples, +40.00%)', `details of kernel_a by total: '${d}'`);
	await p.shot('cumulative');
	await p.toggle('mode-self');
	await p.unhover();
	check(grey(await p.pixel('compute')), 'back to self: compute grey again');

	// widths: kernel_a 70 of 109 by new, 50 of 106 by the baseline
	const all = await p.find('all');
	let k = await p.find('kernel_a');
	check(near(k.width / all.width, 70 / 109, 0.005), `kernel_a is 70/109 of the width by new (${k.width / all.width})`);
	check((await p.find('old_path')) === null, 'the vanished old_path is not drawn by new widths');
	await p.toggle('width-base');
	check((await p.state()).width === 'base', 'width by the baseline after #width-base');
	k = await p.find('kernel_a');
	check(near(k.width / all.width, 50 / 106, 0.005), `kernel_a is 50/106 of the width by the baseline (${k.width / all.width})`);
	check((await p.find('brand_new')) === null, 'the new brand_new is not drawn by baseline widths');
	const old = await p.find('old_path');
	check(old && near(old.width / all.width, 6 / 106, 0.005), 'old_path is drawn by baseline widths');
	await p.shot('width-base');
	await p.toggle('width-new');
	k = await p.find('kernel_a');
	check(near(k.width / all.width, 70 / 109, 0.005), 'back to widths by new');
}

async function vanished(p) {
	check(!(await p.page.isVisible('#vanished-list')), 'the vanished list is hidden at first');
	await p.toggle('vanished');
	const st = await p.state();
	check(st.vanished && st.width === 'base', `the vanished view lays out by the baseline (${JSON.stringify(st)})`);
	const old = await p.find('old_path');
	check(old && old.code === -101 && old.fill === 'hatched', `old_path is drawn as vanished (${JSON.stringify(old)})`);
	const list = await p.text('vanished-list');
	check(list.includes('1 vanished frame') && list.includes('old_path (6 samples)'), `the list names old_path ('${list}')`);
	await p.unhover();
	const px = await p.pixel('kernel_a');
	check(px[3] < 128, `other frames are faded in the vanished view (${px})`);
	const vp = await p.pixel('old_path');
	check(vp[3] === 255, `the vanished frame is not faded (${vp})`);
	await p.hover('old_path');
	const d = await p.details();
	check(d === 'old_path (self: base 6 samples, new 0 samples, \u0394 -6 samples, -100.00%, vanished)', `details of old_path: '${d}'`);
	await p.shot('vanished');
	await p.page.click('#vanished-list button.vanished-frame');
	await p.settle();
	check((await p.state()).zoomed === 'old_path', 'clicking the listed frame zooms to it');
	const z = await p.find('old_path'), all = await p.find('all');
	check(z && near(z.width, all.width, 1), 'the zoomed old_path spans the width');
	await p.toggle('vanished');
	const st2 = await p.state();
	check(!st2.vanished && st2.width === 'new', `leaving the vanished view goes back to widths by new (${JSON.stringify(st2)})`);
	check(!(await p.page.isVisible('#vanished-list')), 'the list is hidden again');
}

async function search(p, base, nw) {
	const cases = [['^kernel_', []], ['^kernel_', ['main', 'compute']], ['helper|idle', []], ['old_path', []]];
	for (const width of ['new', 'base']) {
		const stacks = width === 'new' ? nw : base;
		if (width === 'base')
			await p.toggle('width-base');
		for (const [re, zoomPath] of cases) {
			if (zoomPath.length)
				await p.click(zoomPath[zoomPath.length - 1]);
			await p.search(re);
			const want = expectedMatched(stacks, new RegExp(re), zoomPath);
			const got = await p.matched();
			check(got === want, `width ${width}: /${re}/ zoomed on [${zoomPath}]: '${want}', got '${got}'`);
			if (zoomPath.length)
				await p.toggle('unzoom');
		}
	}
	await p.search('(');
	check((await p.matched()).startsWith('Invalid search'), 'an invalid regex is reported');
	await p.search('');
	check((await p.matched()) === '', 'an empty search hides "Matched"');
}

async function zoom(p) {
	const all = await p.find('all');
	await p.click('compute');
	check((await p.state()).zoomed === 'compute', 'clicking compute zooms on it');
	const c = await p.find('compute'), m = await p.find('main');
	check(c && near(c.width, all.width, 1), 'compute spans the width');
	check(m && near(m.width, all.width, 1), 'the ancestor main is kept');
	check((await p.find('io')) === null && (await p.find('other')) === null, 'frames outside compute are hidden');
	const ka = await p.find('kernel_a');
	check(ka && near(ka.width / all.width, 70 / 85, 0.01), `kernel_a is 70/85 of the zoomed width (${ka && ka.width / all.width})`);
	check(await p.page.isVisible('#unzoom'), '#unzoom is shown');
	await p.shot('zoomed');
	await p.toggle('unzoom');
	check((await p.state()).zoomed === 'all' && (await p.find('io')), 'reset zoom shows everything again');
}

async function url(p) {
	await p.toggle('mode-cumulative');
	await p.toggle('width-base');
	await p.click('compute');
	await p.search('^kernel_');
	const q = p.params();
	check(q.get('mode') === 'cumulative' && q.get('width') === 'base' && q.has('z') && q.get('s') === '^kernel_',
		`the state is in the URL (${p.page.url()})`);
	await p.reload();
	const st = await p.state();
	check(st.mode === 'cumulative' && st.width === 'base' && st.zoomed === 'compute', `reload restores the state (${JSON.stringify(st)})`);
	check(await p.page.isChecked('#mode-cumulative') && await p.page.isChecked('#width-base'), 'the toggles show the restored state');
	check((await p.page.inputValue('#search')) === '^kernel_', 'reload restores the search');
	await p.toggle('vanished');
	check(p.params().get('view') === 'vanished', 'the vanished view is in the URL');
	await p.reload();
	check((await p.state()).vanished, 'reload restores the vanished view');
}

const HOSTILE = [
	'<img src=x onerror=window.__pwned=1>',
	'</script><script>window.__pwned=1</script>',
	']]><script>window.__pwned=1</script><![CDATA[',
	'"quoted" & \'single\' &amp &lt',
	// invalid UTF-8 and controls as a terminal shows them
	'bad\\xff\\xfeutf8',
	'ctrl\\x01\\x1bx',
];

async function hostile(p) {
	const names = await p.page.evaluate(() => JSON.parse(document.getElementById('tk-data').textContent).names);
	for (const h of HOSTILE)
		check(names.includes(h), `the name ${JSON.stringify(h)} is shown verbatim`);
	for (const h of HOSTILE) {
		if (!(await p.find(h)))
			continue;
		await p.hover(h);
		const d = await p.details();
		check(d.startsWith(h + ' ('), `hovering ${JSON.stringify(h)} shows it (${JSON.stringify(d.slice(0, 80))})`);
	}
	await p.toggle('vanished');
	const list = await p.text('vanished-list');
	check(list.includes('</script><script>window.__pwned=1</script>'), 'a hostile vanished name is listed as text');
	await p.search('script|onerror');
	check((await p.matched()).startsWith('Matched:'), 'searching hostile names works');
	await p.reload();
	await p.shot('hostile');
	const pwned = await p.page.evaluate(() => typeof window.__pwned);
	check(pwned === 'undefined', `no injected script ran (window.__pwned is ${pwned})`);
}

async function svg(p, base, nw) {
	const info = await p.page.evaluate(() => {
		const out = {};
		for (const g of document.querySelectorAll('g.func_g')) {
			const t = g.querySelector('title').textContent;
			out[t.slice(0, t.lastIndexOf(' ('))] = { title: t, fill: g.querySelector('rect').getAttribute('fill') };
		}
		return out;
	});
	check(info.kernel_a && /^rgb\(255,(\d+),\1\)$/.test(info.kernel_a.fill), `kernel_a is red (${info.kernel_a && info.kernel_a.fill})`);
	check(info.kernel_b && /^rgb\((\d+),\1,255\)$/.test(info.kernel_b.fill), 'kernel_b is blue');
	check(info.brand_new && info.brand_new.fill === '#000000', 'brand_new is black');
	check(info.compute && info.compute.fill === 'rgb(200,200,200)', 'compute is grey (self unchanged)');
	check(!info.old_path, 'old_path has no width by new');
	const r = await p.page.evaluate(() => {
		for (const g of document.querySelectorAll('g.func_g'))
			if (g.querySelector('title').textContent.startsWith('kernel_a ('))
				return g.querySelector('rect').getBoundingClientRect().toJSON();
		return null;
	});
	await p.page.mouse.move(r.x + r.width / 2, r.y + r.height / 2);
	const d = (await p.page.locator('#details').textContent()).trim();
	check(d === 'kernel_a (self: base 40 samples, new 60 samples, \u0394 +20 samples, +50.00%)', `SVG details: '${d}'`);
	await p.page.mouse.click(r.x + r.width / 2, r.y + r.height / 2);
	await p.settle();
	const q = await p.page.evaluate(() => window.location.search);
	check(/[?&]x=/.test(q), `click zooms (x in the URL: '${q}')`);
	const ka = await p.page.evaluate(() => {
		for (const g of document.querySelectorAll('g.func_g'))
			if (g.querySelector('title').textContent.startsWith('kernel_a ('))
				return Number(g.querySelector('rect').getAttribute('width'));
		return 0;
	});
	check(ka > 1100, `the zoomed kernel_a spans the width (${ka})`);
	p.answer = '^kernel_';
	await p.page.click('#search');
	p.answer = null;
	const m = (await p.page.locator('#matched').textContent()).trim();
	const want = expectedMatched(nw, /^kernel_/, ['main', 'compute', 'kernel_a']);
	check(m === want, `SVG search zoomed on kernel_a: '${want}', got '${m}'`);
	await p.shot('svg');
}

async function rows(p, id) {
	return p.page.evaluate((id) => Array.from(document.querySelectorAll(`#${id} tr`),
		(tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)), id);
}

async function changes(p) {
	const totals = await p.text('totals');
	check(totals === 'samples 106 -> 109 (+2.8%)', `the totals line ('${totals}')`);
	const up = await rows(p, 'changes-self-up'), down = await rows(p, 'changes-self-down');
	check(up.length >= 2 && up[0][0] === 'kernel_a <- compute <- main' && up[0][1] === '+20' &&
	      up[0][2] === '+50.0%', `the top self increase is kernel_a +20 +50.0% (${JSON.stringify(up)})`);
	check(up[1][0].startsWith('brand_new') && up[1][2] === 'new', `then brand_new, new (${JSON.stringify(up)})`);
	check(down[0][0] === 'kernel_b <- compute <- main' && down[0][2] === '-60.0%',
	      `the top self decrease is kernel_b -60.0% (${JSON.stringify(down)})`);
	const cum = await rows(p, 'changes-cum-up');
	check(cum.some((r) => r[0] === 'compute <- main'), `compute's total grew (${JSON.stringify(cum)})`);
	await p.page.click('#changes-self-down a');
	await p.settle();
	let st = await p.state();
	check(st.zoomed === 'kernel_b' && st.mode === 'self', `the row zooms to kernel_b (${JSON.stringify(st)})`);
	await p.page.click('#changes-cum-up a');
	await p.settle();
	st = await p.state();
	check(st.mode === 'cumulative', `a cumulative row colours by cumulative change (${JSON.stringify(st)})`);
	await p.page.evaluate(() => Array.from(document.querySelectorAll('#changes-self-down a'))
		.find((a) => a.textContent.startsWith('old_path')).click());
	await p.settle();
	st = await p.state();
	check(st.vanished && st.zoomed === 'old_path', `a vanished row opens the vanished view on it (${JSON.stringify(st)})`);
	await p.shot('changes');
}

async function knownanswer(p) {
	const totals = await p.text('totals');
	const m = /^(allocations|CPU time) .* -> .* \(\+([0-9.]+)%\)/.exec(totals);
	check(m && Number(m[2]) > 20, `the totals line says what grew ('${totals}')`);
	const up = await rows(p, 'changes-self-up'), down = await rows(p, 'changes-self-down');
	check(up.length === 1 && / <- radiation <- physics/.test(up[0][0]),
	      `the one self increase is under radiation (${JSON.stringify(up)})`);
	const pct = Number(up[0][2].replace('%', ''));
	check(pct > 70 && pct < 130, `at about +100% (${up[0][2]})`);
	check(down.length === 1 && down[0][0] === '(none)', `no self decrease (${JSON.stringify(down)})`);
	await p.shot('knownanswer');
}

// ---- main ----

function runJob(browser, [scenario, file], base, nw) {
	return pageJob(browser, `${scenario} ${path.basename(file)}`, async (page) => {
		const p = new Page(page, path.resolve(file));
		await p.open();
		switch (scenario) {
		case 'toggles': await toggles(p); break;
		case 'vanished': await vanished(p); break;
		case 'search': await search(p, base, nw); break;
		case 'zoom': await zoom(p); break;
		case 'url': await url(p); break;
		case 'hostile': await hostile(p); break;
		case 'svg': await svg(p, base, nw); break;
		case 'changes': await changes(p); break;
		case 'knownanswer': await knownanswer(p); break;
		default: throw new CheckFailed(`unknown scenario '${scenario}'`);
		}
	});
}

exitWith(async () => {
	const base = readFolded(args.base), nw = readFolded(args.new);
	const jobs = args.pos.map((j) => j.split(','));
	if (jobs.some((j) => j.length !== 2))
		usage();
	return runJobs(jobs, (browser, job) => runJob(browser, job, base, nw));
});
