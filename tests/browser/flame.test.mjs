// Headless-Chromium checks of tracker's interactive flame graphs: the SVG
// (plugins/render/svg.c) and the HTML page (plugins/render/html.c).
//
//   node flame.test.mjs [--folded FILE] [--artifacts DIR] SCENARIO,PAGE[,PAGE2]...
//
// One browser runs every job (a scenario on a page); each job prints one
// line, "ok - SCENARIO PAGE..." or "not ok - SCENARIO PAGE...: the first
// check that failed", and the exit status is 1 when any failed.
// tests/t3002-flame-browser.sh turns each line into one TAP result.
// Scenarios (the frame names are those of the fixture t3002 writes, see
// "The fixture's shape" below):
//
//   basic     loads without script errors, hover details, click to zoom
//             (ancestors kept, the rest hidden), reset
//   search    regex search: "Matched: x%" equals what the folded file
//             says, unzoomed and zoomed, and after a reset
//   url       zoom and search go into the URL; a reload restores them
//   cross     PAGE's URL state opened on PAGE2 (SVG <-> HTML) zooms the same
//   inverted  --inverted: the root is at the top, zoom still works
//   hostile   hostile names: no injected script runs, names shown verbatim
//
// The browser is the system's chromium (CHROMIUM, default /usr/bin/chromium)
// driven by playwright-core (harness.mjs); nothing is downloaded.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
	check, CheckFailed, exitWith, expectedMatched, near, parseArgs, readFolded, runJobs, verdict,
	watchPage,
} from './harness.mjs';

function usage() {
	console.error('usage: node flame.test.mjs [--folded FILE] [--artifacts DIR] SCENARIO,PAGE[,PAGE2]...');
	process.exit(2);
}

const args = parseArgs(['folded', 'artifacts'], usage);
if (!args.pos.length)
	usage();

// ---- the oracle: what the folded file says ----

// flamegraph.pl strips these annotations from the names it shows.
function shown(name) {
	return /_\[[kwij]\]$/.test(name) ? name.slice(0, -4) : name;
}

// ---- one adapter per page type, the same verbs for both ----

class Page {
	constructor(page, file) {
		this.page = page;
		this.file = file;
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
		await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
	}
	async text(id) {
		const el = this.page.locator('#' + id);
		if (!(await el.count()) || !(await el.isVisible()))
			return '';
		return (await el.textContent()).trim();
	}
	matched() {
		return this.text('matched');
	}
	details() {
		return this.text('details');
	}
	async unzoom() {
		await this.page.click('#unzoom');
		await this.settle();
	}
	query() {
		return new URL(this.page.url()).search;
	}
	params() {
		return new URL(this.page.url()).searchParams;
	}
	async shot(name) {
		if (!args.artifacts)
			return;
		fs.mkdirSync(args.artifacts, { recursive: true });
		await this.settle();
		await this.page.screenshot({
			path: path.join(args.artifacts, `${path.basename(this.file)}-${name}.png`),
			// Chromium cannot take full-page shots of an SVG document.
			fullPage: !this.file.endsWith('.svg'),
		});
	}
	// The box of the visible frame named `name` in page pixels, or null.
	async box() {
		throw new Error('abstract');
	}
	async click(name) {
		const b = await this.box(name);
		check(b, `frame '${name}' is visible to be clicked`);
		await this.page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
		await this.settle();
	}
	async hover(name) {
		const b = await this.box(name);
		check(b, `frame '${name}' is visible to be hovered`);
		await this.page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
		await this.settle();
	}
}

class SvgPage extends Page {
	constructor(page, file) {
		super(page, file);
		this.answer = null;
		// flamegraph.pl-style search asks with window.prompt.
		page.on('dialog', (d) => (this.answer === null ? d.dismiss() : d.accept(this.answer)));
	}
	async box(name) {
		const r = await this.page.evaluate((name) => {
			for (const g of document.querySelectorAll('g.func_g')) {
				const t = g.querySelector('title').textContent;
				if (t.lastIndexOf(' (') < 0 || t.slice(0, t.lastIndexOf(' (')) !== name)
					continue;
				const b = g.querySelector('rect').getBoundingClientRect();
				if (b.width >= 0.5 && getComputedStyle(g).display !== 'none')
					return { x: b.x, y: b.y, width: b.width, height: b.height };
			}
			return null;
		}, name);
		return r;
	}
	async search(re) {
		// #search resets an active search and prompts otherwise.
		if (await this.matched()) {
			this.answer = null;
			await this.page.click('#search');
		}
		if (re) {
			this.answer = re;
			await this.page.click('#search');
			this.answer = null;
		}
		await this.settle();
	}
	async searchValue() {
		return this.params().get('s') || '';
	}
	async names() {
		return this.page.evaluate(() => [...document.querySelectorAll('g.func_g > title')].map((t) => {
			const s = t.textContent;
			return s.slice(0, s.lastIndexOf(' ('));
		}));
	}
}

class HtmlPage extends Page {
	async box(name) {
		return this.page.evaluate((name) => {
			const b = window.tkFlame.find(name);
			if (!b)
				return null;
			const c = document.getElementById('flame').getBoundingClientRect();
			return { x: c.x + b.x, y: c.y + b.y, width: b.width, height: b.height };
		}, name);
	}
	async search(re) {
		await this.page.fill('#search', re || '');
		await this.settle();
	}
	async searchValue() {
		return this.page.inputValue('#search');
	}
	async names() {
		return this.page.evaluate(() => JSON.parse(document.getElementById('tk-data').textContent).names);
	}
}

function adapterFor(page, file) {
	return file.endsWith('.svg') ? new SvgPage(page, file) : new HtmlPage(page, file);
}

// ---- scenarios ----

// The fixture's shape (t3002 writes it): total 100 samples.
//   main 98 = init 10 (parse_args 3, load_config 7), compute 80 (kernel_a 50
//   with helper 10, kernel_b 25, self 5), io 8 (write_out 8); other 2 (idle 2)
async function zoomedOn(p, name, outside) {
	const all = await p.box('all'), z = await p.box(name);
	check(all && z, `'all' and '${name}' visible after zooming on '${name}'`);
	check(near(z.width, all.width, 1), `'${name}' spans the full width after the zoom (${z.width} vs ${all.width})`);
	for (const o of outside)
		check((await p.box(o)) === null, `'${o}' is hidden after zooming on '${name}'`);
}

async function basic(p) {
	const all = await p.box('all'), compute = await p.box('compute');
	check(all && compute, "'all' and 'compute' are drawn");
	check(near(compute.width / all.width, 0.8, 0.01), `'compute' is 80% of the width (${compute.width / all.width})`);
	await p.hover('kernel_b');
	const d = await p.details();
	check(d === 'kernel_b (25 samples, 25.00%)', `hover details say 'kernel_b (25 samples, 25.00%)', not '${d}'`);
	await p.shot('initial');
	await p.click('compute');
	await zoomedOn(p, 'compute', ['io', 'write_out', 'other', 'init']);
	const main = await p.box('main');
	check(main && near(main.width, all.width, 1), "the ancestor 'main' is kept, full width");
	const ka = await p.box('kernel_a');
	check(ka && near(ka.width / all.width, 50 / 80, 0.01), `'kernel_a' is 50/80 of the width when zoomed (${ka && ka.width / all.width})`);
	check(await p.page.locator('#unzoom').isVisible(), '#unzoom is shown when zoomed');
	await p.shot('zoomed');
	await p.click('kernel_a');
	await zoomedOn(p, 'kernel_a', ['kernel_b', 'io']);
	await p.unzoom();
	const c2 = await p.box('compute');
	check(c2 && near(c2.width, compute.width, 0.5), "reset: 'compute' back to its width");
	check(await p.box('io'), "reset: 'io' visible again");
	// clicking the root resets too
	await p.click('compute');
	await p.click('all');
	check(await p.box('io'), "clicking 'all' resets the zoom");
}

async function search(p, stacks) {
	const cases = [
		['^kernel_', []],
		['^kernel_', ['main', 'compute']],
		['^helper$', ['main', 'compute', 'kernel_a']],
		['load|parse', ['main', 'init']],
		['^kernel_', ['main', 'init']],
		['compute', ['main', 'compute']],
	];
	for (const [re, zoomPath] of cases) {
		if (zoomPath.length)
			await p.click(zoomPath[zoomPath.length - 1]);
		await p.search(re);
		const want = expectedMatched(stacks, new RegExp(re), zoomPath);
		const got = await p.matched();
		check(got === want, `search /${re}/ zoomed on [${zoomPath}]: '${want}', got '${got}'`);
		if (zoomPath.length) {
			await p.unzoom();
			const w0 = expectedMatched(stacks, new RegExp(re), []);
			const g0 = await p.matched();
			check(g0 === w0, `search /${re}/ after reset: '${w0}', got '${g0}'`);
		}
	}
	// zoom first, then search, then zoom elsewhere: the number follows the zoom
	await p.search('');
	check((await p.matched()) === '', 'an empty search hides "Matched"');
	await p.click('compute');
	await p.search('^kernel_b$');
	check((await p.matched()) === expectedMatched(stacks, /^kernel_b$/, ['main', 'compute']), 'search after zoom');
	await p.shot('search-zoomed');
	await p.unzoom();
	check((await p.matched()) === 'Matched: 25.0%', 'search after zoom, then reset: 25.0%');
	// an invalid regex is reported, not thrown
	await p.search('(');
	check(!(await p.matched()).startsWith('Matched:'), 'an invalid regex matches nothing');
}

async function url(p, stacks) {
	await p.click('compute');
	await p.search('^kernel_');
	const q = p.params();
	check(q.has('x') && q.has('y'), `zoom is in the URL (${p.query()})`);
	check(q.get('s') === '^kernel_', `search is in the URL (${p.query()})`);
	await p.reload();
	await zoomedOn(p, 'compute', ['io', 'other']);
	const want = expectedMatched(stacks, /^kernel_/, ['main', 'compute']);
	check((await p.matched()) === want, `after reload: '${want}', got '${await p.matched()}'`);
	check((await p.searchValue()) === '^kernel_', 'after reload the search term is back');
	await p.shot('reloaded');
	await p.unzoom();
	check(!p.params().has('x') && !p.params().has('y'), `reset removes the zoom from the URL (${p.query()})`);
	await p.search('');
	check(!p.params().has('s'), `clearing the search removes it from the URL (${p.query()})`);
	// other parameters are kept
	await p.open('?keep=1');
	await p.click('init');
	check(p.params().get('keep') === '1' && p.params().has('x'), `unrelated parameters are kept (${p.query()})`);
}

async function cross(p, p2) {
	await p.click('kernel_a');
	await p.search('helper');
	const q = p.query();
	await p2.open(q);
	await zoomedOn(p2, 'kernel_a', ['kernel_b', 'io']);
	check((await p2.matched()) === 'Matched: 20.0%', `the other page restores the search (${await p2.matched()})`);
}

async function inverted(p) {
	const all = await p.box('all'), main = await p.box('main');
	check(all && main && all.y < main.y, "inverted: 'all' is above 'main'");
	await p.click('compute');
	await zoomedOn(p, 'compute', ['io', 'other']);
	await p.hover('helper');
	check((await p.details()) === 'helper (10 samples, 10.00%)', `inverted details (${await p.details()})`);
	await p.shot('inverted-zoomed');
}

const HOSTILE = [
	'<img src=x onerror=window.__pwned=1>',
	'</script><script>window.__pwned=1</script>',
	']]><script>window.__pwned=1</script><![CDATA[',
	'<svg onload=window.__pwned=1>',
	'"quoted" & \'single\' &amp &lt',
	// controls, bidi controls and invalid UTF-8 as a terminal shows them
	'bad\\xff\\xfeutf8',
	'ctrl\\x01\\x1bx',
	'rtl\\xe2\\x80\\xaex',
	'line\u2028sep\u2029x',
];

async function hostile(p) {
	const names = await p.names();
	for (const h of HOSTILE)
		check(names.includes(h), `the name ${JSON.stringify(h)} is shown verbatim`);
	check(names.some((n) => n.length >= 100000), 'the 100 KB name is there');
	for (const h of HOSTILE) {
		const b = await p.box(h);
		if (!b)
			continue;
		await p.hover(h);
		const d = await p.details();
		check(d.startsWith(h + ' ('), `hovering ${JSON.stringify(h)} shows it (${JSON.stringify(d.slice(0, 80))})`);
	}
	await p.search('script|onerror|onload');
	check((await p.matched()).startsWith('Matched:'), 'searching hostile names works');
	await p.click('main');
	await p.reload();
	await p.shot('hostile');
	const pwned = await p.page.evaluate(() => typeof window.__pwned);
	check(pwned === 'undefined', `no injected script ran (window.__pwned is ${pwned})`);
}

// ---- main ----

async function runJob(browser, job) {
	const [scenario, pageFile, pageFile2] = job;
	const errors = [], pages = [];
	const mk = async (file) => {
		const page = await browser.newPage();
		pages.push(page);
		watchPage(page, errors);
		const p = adapterFor(page, path.resolve(file));
		await p.open();
		return p;
	};
	const name = `${scenario} ${path.basename(pageFile)}` + (pageFile2 ? ` ${path.basename(pageFile2)}` : '');
	try {
		return await verdict(name, errors, async () => {
			const p = await mk(pageFile);
			const stacks = args.folded ? readFolded(args.folded, shown) : [];
			switch (scenario) {
			case 'basic': await basic(p); break;
			case 'search': await search(p, stacks); break;
			case 'url': await url(p, stacks); break;
			case 'cross': await cross(p, await mk(pageFile2)); break;
			case 'inverted': await inverted(p); break;
			case 'hostile': await hostile(p); break;
			default: throw new CheckFailed(`unknown scenario '${scenario}'`);
			}
		});
	} finally {
		for (const page of pages)
			await page.close();
	}
}

exitWith(async () => {
	const jobs = [];
	for (const j of args.pos) {
		const parts = j.split(',');
		if (parts.length < 2)
			usage();
		jobs.push(parts);
	}
	return runJobs(jobs, runJob);
});
