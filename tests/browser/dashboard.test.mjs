// Headless-Chromium checks of tracker dashboard's page (core/pages/dashboard.c).
//
//   node dashboard.test.mjs [--artifacts DIR] SCENARIO,PAGE...
//
// Each job prints "ok - SCENARIO PAGE" or "not ok - SCENARIO PAGE: the
// first check that failed"; the exit status is 1 when any failed.
// tests/t2204-dashboard-browser.sh writes the page from
// tests/helpers/gen-history.py's history of four keys: k-slow (walltime
// x1.5 in the newest build, 159: a regression), k-fast (x0.7: an improvement),
// k-same (no change) and a hostile key (markup, quotes, '&'). Scenarios:
//
//   sort     sorting by the walltime change puts k-slow first, k-fast
//            last; again, the other way round; the verdicts are shown
//   filter   typing in the filter leaves the matching keys only
//   link     a key's link opens its chart page, which works
//   hostile  the hostile key is shown verbatim and no injected script runs
//   wide     a page of four metrics and a long key at 1280 px: no key
//            wraps (the long one ends in an ellipsis, whole on hover),
//            the page does not overflow the window, the metric columns
//            scroll under a key column that stays; a change is coloured
//            only when its verdict says it is one; each sparkline shades
//            its baseline band, and a run of no change is inside it
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
	check, CheckFailed, exitWith, parseArgs, pageJob, runJobs, screenshot,
} from './harness.mjs';

const args = parseArgs(['artifacts']);

const shot = (page, file, name) => screenshot(page, args.artifacts, file, name);

const order = (page) => page.evaluate(() => window.tkDash.order());
const HOSTILE = '<script>window.__pwned=1</script>&"\'';

async function sort(page, file) {
	await page.click('#sort-d0');
	let o = await order(page);
	check(o.length === 4, `four keys: ${o}`);
	check(o[0] === 'k-slow' && o[3] === 'k-fast', `by walltime change, largest first: ${o}`);
	const deltas = await page.evaluate(() => Array.from(document.querySelectorAll('#rows tr'))
		.map((r) => parseFloat(r.getAttribute('data-d0'))));
	check(deltas.every((d, i) => i === 0 || d <= deltas[i - 1]), `descending: ${deltas}`);
	check(deltas[0] > 30 && deltas[0] < 70 && deltas[3] < -20, `the changes: ${deltas}`);
	await shot(page, file, 'sort');
	await page.click('#sort-d0');
	o = await order(page);
	check(o[0] === 'k-fast' && o[3] === 'k-slow', `then smallest first: ${o}`);
	const verdict = await page.evaluate(() => {
		const v = {};
		document.querySelectorAll('#rows tr').forEach((r) => {
			v[r.cells[0].textContent] = r.querySelector('[class^=v-]').textContent;
		});
		return v;
	});
	check(verdict['k-slow'] === 'regression' && verdict['k-fast'] === 'improvement' &&
		verdict['k-same'] === 'no change', `verdicts: ${JSON.stringify(verdict)}`);
	const sparks = await page.evaluate(() => document.querySelectorAll('#rows svg.spark path').length);
	check(sparks === 8, `a sparkline per key and metric: ${sparks}`);
}

async function filter(page, file) {
	await page.fill('#filter', 'FAST');
	let o = await order(page);
	check(o.length === 1 && o[0] === 'k-fast', `filtered: ${o}`);
	check(/1 of 4/.test(await page.textContent('#shown')), 'count shown');
	await page.fill('#filter', 'k-');
	o = await order(page);
	check(o.length === 3 && !o.includes(HOSTILE), `three k- keys: ${o}`);
	await shot(page, file, 'filter');
	await page.fill('#filter', '');
	check((await order(page)).length === 4, 'all again');
}

async function link(page, file) {
	const href = await page.evaluate(() => Array.from(document.querySelectorAll('#rows tr'))
		.find((r) => r.cells[0].textContent === 'k-slow').querySelector('a').getAttribute('href'));
	check(/^k-slow-[0-9a-f]{8}\.html$/.test(href), `file name: ${href}`);
	await page.click(`a[href="${href}"]`);
	await page.waitForLoadState();
	check(await page.evaluate(() => window.tkPlot && window.tkPlot.charts === 2), 'the chart page runs');
	const title = await page.textContent('#title');
	check(title === 'tracker history: k-slow', `its title: ${title}`);
	await shot(page, file, 'link');
}

async function hostile(page, file) {
	const o = await order(page);
	check(o.includes(HOSTILE), `hostile key verbatim: ${JSON.stringify(o)}`);
	check(await page.evaluate(() => window.__pwned === undefined && document.querySelectorAll('script').length === 2),
		'no injected script');
	const href = await page.evaluate((h) => Array.from(document.querySelectorAll('#rows tr'))
		.find((r) => r.cells[0].textContent === h).querySelector('a').getAttribute('href'), HOSTILE);
	check(/^_script_window[A-Za-z0-9_]+-[0-9a-f]{8}\.html$/.test(href), `safe file name: ${href}`);
	await page.click('#rows a[href="' + href + '"]');
	await page.waitForLoadState();
	check(await page.evaluate(() => window.tkPlot && window.__pwned === undefined), 'its page is safe too');
}

const LONG = 'climacoupler-amip-longrun-with-a-very-long-configuration-name';

async function wide(page, file) {
	const m = await page.evaluate(() => {
		const keys = Array.from(document.querySelectorAll('#rows td.key'));
		const scroll = document.getElementById('scroll');
		/* one line of 13 px text is under 20 px high */
		const lines = keys.map((td) => Math.round(td.querySelector('a').getBoundingClientRect().height));
		const before = keys.map((td) => td.getBoundingClientRect().left);
		scroll.scrollLeft = 10000;
		const after = keys.map((td) => td.getBoundingClientRect().left);
		const row = (k) => Array.from(document.querySelectorAll('#rows tr'))
			.find((r) => r.cells[0].textContent === k);
		const deltas = (k) => Array.from(row(k).querySelectorAll('td.num'))
			.filter((td) => /%$/.test(td.textContent)).map((td) => td.className);
		const inBand = Array.from(row('k-same').querySelectorAll('svg.spark')).map((svg) => {
			const band = svg.querySelector('rect.band'), dot = svg.querySelector('circle');
			if (!band || !dot)
				return false;
			const y = +dot.getAttribute('cy'), top = +band.getAttribute('y');
			return y >= top - 3 && y <= top + +band.getAttribute('height') + 3;
		});
		const long = keys.find((td) => td.title.startsWith('climacoupler-'));
		return {
			lines, before, after, inBand,
			pageWidth: document.documentElement.scrollWidth,
			scrolls: scroll.scrollWidth > scroll.clientWidth,
			slow: deltas('k-slow'), same: deltas('k-same'),
			bands: document.querySelectorAll('#rows svg.spark rect.band').length,
			sparks: document.querySelectorAll('#rows svg.spark').length,
			longTitle: long ? long.title : null,
			longCut: long ? long.scrollWidth > long.clientWidth : false,
			keyWidth: long ? long.getBoundingClientRect().width : 0,
		};
	});
	check(m.lines.every((h) => h > 0 && h < 20), `every key on one line (heights ${m.lines})`);
	check(m.longTitle === LONG && m.longCut, `the long key cut, whole on hover: ${m.longTitle} ${m.longCut}`);
	check(m.keyWidth > 100 && m.keyWidth < 320, `the key column's width: ${m.keyWidth}`);
	check(m.pageWidth <= 1280, `the page fits the window: ${m.pageWidth}`);
	check(m.scrolls, 'the metric columns scroll');
	check(m.before.every((x, i) => Math.abs(x - m.after[i]) < 1), `the key column stays: ${m.before} ${m.after}`);
	check(m.slow[0] === 'num up', `k-slow's walltime change is red: ${m.slow}`);
	check(m.same.every((c) => c === 'num'), `k-same's changes are plain: ${m.same}`);
	check(m.bands === m.sparks && m.sparks === 20, `every sparkline shades its band: ${m.bands} of ${m.sparks}`);
	check(m.inBand.every((b) => b), `k-same's runs of no change are in their band: ${m.inBand}`);
	await shot(page, file, 'wide');
}

function runJob(browser, [scenario, file]) {
	return pageJob(browser, `${scenario} ${path.basename(file)}`, async (page) => {
		await page.goto(pathToFileURL(path.resolve(file)).href);
		switch (scenario) {
		case 'sort': await sort(page, file); break;
		case 'filter': await filter(page, file); break;
		case 'link': await link(page, file); break;
		case 'hostile': await hostile(page, file); break;
		case 'wide': await wide(page, file); break;
		default: throw new CheckFailed(`unknown scenario '${scenario}'`);
		}
	});
}

exitWith(() => runJobs(args.pos.map((j) => j.split(',')), runJob));
