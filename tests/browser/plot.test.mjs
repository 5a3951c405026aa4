// Headless-Chromium checks of tracker history --plot's HTML page
// (core/pages/plothtml.c, the charts from core/pages/chart.c painted by
// core/pages/chartsvg.c).
//
//   node plot.test.mjs [--artifacts DIR] SCENARIO,PAGE...
//
// Each job prints "ok - SCENARIO PAGE" or "not ok - SCENARIO PAGE: the
// first check that failed"; the exit status is 1 when any failed. The
// pages are drawn from tests/helpers/gen-history.py's history (staging
// builds 100..159, the newest current; feature-x runs at 105, 115, ...;
// 105 failed) by tests/t2203-history-plot-browser.sh. Scenarios:
//
//   tooltip  hovering a point shows its build, branch, commit, values and
//            a link to the build URL; the failed run says so
//   toggle   unticking a series hides its dots and its tooltips; ticking
//            it again shows them
//   zoom     dragging across a chart zooms the time axis (new ticks, the
//            newest point leaves the view); Reset zoom restores it
//   hostile  (a page of --hostile records) the hostile branch name is
//            shown verbatim, no injected script runs, and a javascript:
//            build URL is not linked
//   classes  (a page of builds 100..219 taking turns on machine classes
//            cpu-large, even builds, and cpu-small) the tooltip names the
//            class; unticking a class hides its series (dots, line, band,
//            median, change points) and its tooltips, not the other
//            class's; a class ticked again stays hidden while the
//            baseline toggle is off
//   readable (a page 640 px wide, as the report's, of walltime, maxrss
//            and a metric without values) as drawn by Chromium: no two
//            tick labels of an axis overlap; each chart's current run
//            carries its verdict, its change and its threshold band; no
//            legend entry runs off the picture; the metric without
//            values has no chart, one line names it
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
	check, CheckFailed, exitWith, parseArgs, pageJob, runJobs, screenshot, settle,
} from './harness.mjs';

const args = parseArgs(['artifacts']);

const shot = (page, file, name) => screenshot(page, args.artifacts, file, name);

// Hovers the point of build `build` (class cls: 0 baseline, 1 other,
// 2 current) in chart ci; returns the tooltip's text ('' when hidden).
async function hover(page, ci, build, cls) {
	const pt = await page.evaluate(([ci, build, cls]) => {
		const i = window.tkPlot.find(ci, build, cls);
		return i < 0 ? null : window.tkPlot.point(ci, i);
	}, [ci, build, cls]);
	check(pt, `chart ${ci} has a point of build ${build}`);
	await page.mouse.move(pt.x + 30, pt.y + 30);
	await page.mouse.move(pt.x, pt.y);
	await settle(page);
	return page.evaluate(() => {
		const t = document.getElementById('tip');
		return t.hidden ? '' : t.innerText;
	});
}

async function tooltip(page, file) {
	check(await page.evaluate(() => window.tkPlot && window.tkPlot.charts === 2), 'two charts (walltime, maxrss)');
	let t = await hover(page, 0, 159, 2);
	check(/build #159/.test(t), `tooltip names build #159: ${t}`);
	check(/branch: staging/.test(t), `tooltip names the branch: ${t}`);
	check(/commit: [0-9a-f]{40}/.test(t), `tooltip names the commit: ${t}`);
	check(/walltime: [0-9]/.test(t) && /max RSS.*GiB/.test(t), `tooltip has the values: ${t}`);
	check(/current/.test(t), `the newest run is current: ${t}`);
	const href = await page.evaluate(() => {
		const a = document.querySelector('#tip a.buildlink');
		return a ? a.getAttribute('href') : null;
	});
	check(href === 'https://buildkite.com/clima/climacoupler-ci/builds/159', `link to the build: ${href}`);
	await shot(page, file, 'tooltip');
	t = await hover(page, 0, 105, 0);
	check(/build #105/.test(t) && /status: failed/.test(t), `the failed run says so: ${t}`);
	t = await hover(page, 0, 115, 1);
	check(/build #115/.test(t) && /branch: feature-x/.test(t) && /other branch/.test(t),
		`a feature-x run: ${t}`);
	t = await hover(page, 1, 120, 0);
	check(/build #120/.test(t) && /^[^]*max RSS[^:]*: [0-9.]+ GiB[^]*walltime/.test(t),
		`the memory chart's tooltip leads with its metric: ${t}`);
}

async function toggle(page, file) {
	let t = await hover(page, 0, 125, 1);
	check(/feature-x/.test(t), `feature-x run hovered: ${t}`);
	await page.mouse.move(5, 5);
	await page.click('#t-other');
	await settle(page);
	const shown = await page.evaluate(() => Array.from(document.querySelectorAll('#chart0 path.s-other'))
		.map((e) => getComputedStyle(e).display));
	check(shown.length > 0 && shown.every((d) => d === 'none'), `other branches hidden: ${shown}`);
	t = await hover(page, 0, 125, 1);
	check(!/feature-x/.test(t), `a hidden series has no tooltip: ${t}`);
	await shot(page, file, 'toggle');
	await page.mouse.move(5, 5);
	await page.click('#t-other');
	await settle(page);
	const again = await page.evaluate(() => Array.from(document.querySelectorAll('#chart0 path.s-other'))
		.map((e) => getComputedStyle(e).display));
	check(again.every((d) => d !== 'none'), 'shown again');
	t = await hover(page, 0, 125, 1);
	check(/feature-x/.test(t), `tooltip again: ${t}`);
	await page.click('#t-band');
	await settle(page);
	check(await page.evaluate(() => Array.from(document.querySelectorAll('#chart1 .s-band'))
		.every((e) => e.classList.contains('li') || getComputedStyle(e).display === 'none')), 'band hidden');
}

async function zoom(page, file) {
	const before = await page.evaluate(() => window.tkPlot.ticks(0));
	const a = await page.evaluate(() => window.tkPlot.area(0));
	const y = (a.y0 + a.y1) / 2, w = a.x1 - a.x0;
	await page.mouse.move(a.x0 + w * 0.25, y);
	await page.mouse.down();
	await page.mouse.move(a.x0 + w * 0.4, y, { steps: 5 });
	await page.mouse.move(a.x0 + w * 0.5, y, { steps: 5 });
	await page.mouse.up();
	await settle(page);
	const z = await page.evaluate(() => window.tkPlot.zoom());
	check(z && z[1] > z[0], `zoomed: ${JSON.stringify(z)}`);
	const after = await page.evaluate(() => window.tkPlot.ticks(0));
	check(after.length >= 2 && after.join() !== before.join(), `new ticks: ${before} -> ${after}`);
	const p = await page.evaluate(() => window.tkPlot.point(0, window.tkPlot.find(0, 159, 2)));
	check(p.x > a.x1, 'the newest point is out of view');
	const m = await page.evaluate(() => window.tkPlot.point(1, window.tkPlot.find(1, 120, 0)));
	check(m.x >= a.x0 && m.x <= a.x1, 'build 120 is in view in the other chart too');
	await shot(page, file, 'zoom');
	check(await page.evaluate(() => !document.getElementById('unzoom').disabled), 'Reset zoom enabled');
	await page.click('#unzoom');
	await settle(page);
	check(await page.evaluate(() => window.tkPlot.zoom() === null), 'reset');
	const back = await page.evaluate(() => window.tkPlot.ticks(0));
	check(back.join() === before.join(), `ticks restored: ${back}`);
}

async function hostile(page, file) {
	const t = await hover(page, 0, 115, 1);
	check(t.includes('<script>alert(1)</script>&"\''), `hostile branch shown verbatim: ${JSON.stringify(t.slice(0, 200))}`);
	const title = await page.evaluate(() => document.getElementById('subtitle').textContent);
	check(title.length > 0, 'subtitle');
	const t2 = await hover(page, 0, 103, 0);
	check(/build #103/.test(t2), `build 103: ${t2}`);
	check(await page.evaluate(() => document.querySelector('#tip a') === null), 'a javascript: URL is not linked');
	check(await page.evaluate(() => window.__pwned === undefined && document.querySelectorAll('script').length === 2),
		'no injected script');
	await shot(page, file, 'hostile');
}

// The toggle of machine class `name` and the page's index of the class.
async function classToggle(page, name) {
	return page.evaluate((name) => {
		const j = window.tkPlot.classes().indexOf(name);
		return j < 0 ? null : { j, id: '#t-mc' + j };
	}, name);
}

async function displays(page, sel) {
	return page.evaluate((sel) => Array.from(document.querySelectorAll(sel))
		.map((e) => getComputedStyle(e).display), sel);
}

async function classes(page, file) {
	let t = await hover(page, 0, 120, 0);
	check(/build #120/.test(t) && /machine class: cpu-large/.test(t), `tooltip names the class: ${t}`);
	t = await hover(page, 0, 121, 0);
	check(/build #121/.test(t) && /machine class: cpu-small/.test(t), `tooltip names the class: ${t}`);
	const large = await classToggle(page, 'cpu-large'), small = await classToggle(page, 'cpu-small');
	check(large && small && await page.$(large.id) && await page.$(small.id), 'a toggle per class');
	await page.mouse.move(5, 5);
	await page.click(large.id);
	await settle(page);
	const off = await displays(page, `#chart0 path.s-mc${large.j}`);
	check(off.length >= 5 && off.every((d) => d === 'none'),
		`cpu-large's dots, line, band, median and change point hidden: ${off}`);
	const on = await displays(page, `#chart0 path.s-mc${small.j}`);
	check(on.length >= 4 && on.every((d) => d !== 'none'), `cpu-small's series shown: ${on}`);
	t = await hover(page, 0, 120, 0);
	check(!/build #120/.test(t), `a hidden class has no tooltip: ${t}`);
	t = await hover(page, 0, 121, 0);
	check(/build #121/.test(t), `the other class keeps its tooltips: ${t}`);
	await shot(page, file, 'classes');
	await page.mouse.move(5, 5);
	await page.click('#t-base');
	await page.click(large.id);
	await settle(page);
	const dots = await displays(page, `#chart0 path.s-base.s-mc${large.j}`);
	check(dots.length > 0 && dots.every((d) => d === 'none'), `baseline off: the class's dots stay hidden: ${dots}`);
	await page.click('#t-base');
	await settle(page);
	const back = await displays(page, `#chart0 path.s-mc${large.j}`);
	check(back.every((d) => d !== 'none'), `both ticked: shown again: ${back}`);
}

async function readable(page, file) {
	const m = await page.evaluate(() => {
		const overlaps = (boxes, horizontal) => boxes.some((b, i) => i && (horizontal
			? b.left < boxes[i - 1].right : b.top < boxes[i - 1].bottom));
		const charts = Array.from(document.querySelectorAll('svg g.chart'));
		return {
			charts: charts.length,
			xt: charts.map((c) => overlaps(Array.from(c.querySelectorAll('g.xt text'),
				(t) => t.getBoundingClientRect()).sort((a, b) => a.left - b.left), true)),
			yt: charts.map((c) => overlaps(Array.from(c.querySelectorAll('g.yt text'),
				(t) => t.getBoundingClientRect()).sort((a, b) => a.top - b.top), false)),
			nxt: charts.map((c) => c.querySelectorAll('g.xt text').length),
			nyt: charts.map((c) => c.querySelectorAll('g.yt text').length),
			verdicts: charts.map((c) => { const t = c.querySelector('text.verdict'); return t ? t.textContent : ''; }),
			bands: charts.map((c) => c.querySelectorAll('.s-threshold').length),
			omitted: (document.querySelector('svg text.omitted') || {}).textContent || '',
			legendOut: Array.from(document.querySelectorAll('svg g.li')).filter((g) =>
				g.getBoundingClientRect().right >
				g.ownerSVGElement.getBoundingClientRect().right + 0.5).length,
		};
	});
	check(m.charts === 2, `two charts, none for the metric without values: ${m.charts}`);
	check(/^no values: .* for amip$/.test(m.omitted), `one line names it: '${m.omitted}'`);
	check(m.xt.every((o) => !o) && m.nxt.every((n) => n >= 2), `x tick labels apart: ${m.xt} (${m.nxt})`);
	check(m.yt.every((o) => !o) && m.nyt.every((n) => n >= 2), `y tick labels apart: ${m.yt} (${m.nyt})`);
	check(m.verdicts.every((v) => /^[+-][0-9.]+% (no change|regression|improvement) \(threshold /.test(v)),
		`each current run's verdict: ${JSON.stringify(m.verdicts)}`);
	check(m.bands.every((n) => n === 1), `each verdict's threshold band: ${m.bands}`);
	check(m.legendOut === 0, `no legend entry runs off the picture: ${m.legendOut}`);
	await shot(page, file, 'readable');
}

function runJob(browser, [scenario, file]) {
	return pageJob(browser, `${scenario} ${path.basename(file)}`, async (page) => {
		await page.goto(pathToFileURL(path.resolve(file)).href);
		await settle(page);
		switch (scenario) {
		case 'tooltip': await tooltip(page, file); break;
		case 'toggle': await toggle(page, file); break;
		case 'zoom': await zoom(page, file); break;
		case 'hostile': await hostile(page, file); break;
		case 'classes': await classes(page, file); break;
		case 'readable': await readable(page, file); break;
		default: throw new CheckFailed(`unknown scenario '${scenario}'`);
		}
	});
}

exitWith(() => runJobs(args.pos.map((j) => j.split(',')), runJob));
