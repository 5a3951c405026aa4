// The flame HTML page's views below the graph (plugins/render/html.c,
// docs/flame-html.md): the sortable top table and the sandwich view.
//
//   node flame-views.test.mjs [--artifacts DIR] PAGE HOSTILE-PAGE
//
// PAGE is tracker flame's page of the profile t3004 writes (its numbers
// are below); HOSTILE-PAGE one whose names try to run script. One line
// per check, "ok - NAME" or "not ok - NAME: why".
import { pathToFileURL } from 'node:url';
import { check, exitWith, pageJob, parseArgs, runJobs, screenshot, settle } from './harness.mjs';

const args = parseArgs(['artifacts'], () => {
	console.log('usage: node flame-views.test.mjs [--artifacts DIR] PAGE HOSTILE-PAGE');
	process.exit(2);
});
const [pageFile, hostileFile] = args.pos;

async function open(page, file) {
	await page.setViewportSize({ width: 1280, height: 900 });
	await page.goto(pathToFileURL(file).href);
	await settle(page);
}

const rows = (page) => page.evaluate(() => window.tkFlame.table());
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const jobs = [
	['table: every function, self and total, by total', pageFile, async (page) => {
		const t = await rows(page);
		check(same(t.slice(0, 3).map((r) => r[0]), ['main', 'compute', 'kernel_a']),
			'first rows by total: ' + JSON.stringify(t.slice(0, 3)));
		const by = Object.fromEntries(t.map((r) => [r[0], r.slice(1)]));
		check(same(by.kernel_a, [40, 50]), 'kernel_a self 40, total 50: ' + by.kernel_a);
		check(same(by.helper, [16, 16]), 'helper on two paths: 16, 16: ' + by.helper);
		check(same(by.walk, [0, 6]), 'a recursion counts once: walk total 6, not 18: ' + by.walk);
		check(t.length === 13, '13 functions: ' + t.length);
		const cells = await page.$$eval('#top tbody tr:first-child td', (tds) => tds.map((td) => td.textContent));
		check(same(cells, ['main', '0 samples', '0.00%', '104 samples', '98.11%']), 'first row shown: ' + cells);
	}],
	['table: a header click sorts by it, a second reverses', pageFile, async (page) => {
		await page.click('#top th[data-key="self"]');
		let t = await rows(page);
		check(t[0][0] === 'kernel_a' && t[1][0] === 'kernel_b', 'by self: ' + JSON.stringify(t.slice(0, 2)));
		check(t.every((r, i) => i === 0 || t[i - 1][1] >= r[1]), 'self descending');
		await page.click('#top th[data-key="self"]');
		t = await rows(page);
		check(t.every((r, i) => i === 0 || t[i - 1][1] <= r[1]), 'then ascending');
		await page.click('#top th[data-key="name"]');
		t = await rows(page);
		check(t[0][0] === 'compute' && t[t.length - 1][0] === 'write_out', 'by name: ' + t.map((r) => r[0]));
	}],
	['table: a row click highlights the function in the graph', pageFile, async (page) => {
		await page.click('#top tbody tr:nth-child(3)');
		await settle(page);
		const s = await page.evaluate(() => ({
			search: document.getElementById('search').value,
			matched: document.getElementById('matched').textContent,
			url: location.search,
			sel: document.querySelector('#top tr.sel td').textContent,
		}));
		check(s.search === '^kernel_a$', 'the search names it exactly: ' + s.search);
		check(s.matched === 'Matched: 47.2%', 'Matched is its share (50 of 106): ' + s.matched);
		check(s.url.includes('s=%5Ekernel_a%24'), 'kept in the URL: ' + s.url);
		check(s.sel === 'kernel_a', 'the row is selected: ' + s.sel);
		await screenshot(page, args.artifacts, pageFile, 'kernel_a');
	}],
	['sandwich: callers and callees of a function', pageFile, async (page) => {
		const h = await page.evaluate(() => window.tkFlame.sandwich('helper'));
		check(same(h.callers, ['helper;kernel_a;compute;main 10', 'helper;walk;walk;walk;main 6']),
			'callers of helper, each path up to the root: ' + JSON.stringify(h.callers));
		check(same(h.callees, ['helper 16']), 'helper calls nothing: ' + JSON.stringify(h.callees));
		const w = await page.evaluate(() => window.tkFlame.sandwich('walk'));
		check(same(w.callers, ['walk;main 6']), 'a recursion: the outer frame only: ' + JSON.stringify(w.callers));
		check(same(w.callees, ['walk;walk;walk;helper 6']), 'its callees: ' + JSON.stringify(w.callees));
		const c = await page.evaluate(() => window.tkFlame.sandwich('compute'));
		check(same(c.callees, ['compute 5', 'compute;kernel_a 40', 'compute;kernel_a;helper 10',
			'compute;kernel_b 25']), 'compute\'s callees: ' + JSON.stringify(c.callees));
	}],
	['sandwich: drawn below the table, and a frame click moves it', pageFile, async (page) => {
		await page.click('#top tbody tr:nth-child(5)');
		await settle(page);
		let title = await page.textContent('#sandwich h2');
		check(title === 'Sandwich: helper', 'the row opens its sandwich: ' + title);
		const callers = await page.$$eval('#callers .row', (rs) => rs.map((r) =>
			Array.from(r.children).map((f) => f.textContent).join('|')));
		// rows top down: the callers' paths end at the roots, the function at the bottom
		check(same(callers, ['main', 'main|walk', 'compute|walk', 'kernel_a|walk', 'helper']),
			'callers above the function, heavier path first: ' + JSON.stringify(callers));
		const callees = await page.$$eval('#callees .row', (rs) => rs.map((r) => r.textContent));
		check(same(callees, ['helper']), 'callees: the function alone: ' + callees);
		const box = await page.$eval('#callers .row:last-child .frame', (f) => f.getBoundingClientRect().width);
		const row = await page.$eval('#callers .row:last-child', (r) => r.getBoundingClientRect().width);
		check(Math.abs(box - row) < 2, 'the function spans the whole width: ' + box + ' of ' + row);
		await page.click('#callers .frame >> text=kernel_a');
		await settle(page);
		title = await page.textContent('#sandwich h2');
		check(title === 'Sandwich: kernel_a', 'a caller clicked is the new centre: ' + title);
		await screenshot(page, args.artifacts, pageFile, 'sandwich');
	}],
	['hostile names in the table and sandwich are text', hostileFile, async (page) => {
		const t = await rows(page);
		check(t.some((r) => r[0] === '<img src=x onerror=window.__pwned=1>'), 'the name is shown verbatim');
		for (let i = 1; i <= Math.min(t.length, 6); i++) {
			await page.click(`#top tbody tr:nth-child(${i})`);
			await settle(page);
		}
		const pwned = await page.evaluate(() => window.__pwned);
		check(pwned === undefined, 'no injected script ran');
		const imgs = await page.$$eval('img, svg', (e) => e.length);
		check(imgs === 0, 'no element made from a name: ' + imgs);
	}],
];

exitWith(() => runJobs(jobs, (browser, [name, file, fn]) =>
	pageJob(browser, name, async (page) => {
		await open(page, file);
		await fn(page);
	})));
