// What the browser tests share: launching Debian's chromium through
// playwright-core (nothing is downloaded), watching a page for script
// errors and network requests, the flame graph oracle (readFolded,
// expectedMatched), and the frame of a test script: its command line,
// checks, and one "ok"/"not ok" line per job.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// Runs fn(context) with one headless browser in a fresh profile
// directory, closed and removed afterwards.
export async function withBrowser(fn) {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tk-chromium-'));
	try {
		const browser = await chromium.launchPersistentContext(profile, {
			executablePath: CHROMIUM,
			headless: true,
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
				'--disable-background-networking', '--disable-component-update', '--disable-sync'],
			viewport: { width: 1280, height: 800 },
		});
		try {
			return await fn(browser);
		} finally {
			await browser.close();
		}
	} finally {
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

// Collects a page's script errors, console errors and non-file requests
// into errors.
export function watchPage(page, errors) {
	page.on('pageerror', (e) => errors.push('page error: ' + e.message));
	page.on('console', (m) => {
		if (m.type() === 'error')
			errors.push('console error: ' + m.text());
	});
	page.on('request', (r) => {
		if (!r.url().startsWith('file:'))
			errors.push('network request to ' + r.url());
	});
}

// ---- the oracle of flame graph and diff pages: what folded files say ----

// The stacks of a folded file: { frames: ['all', ...names], w: weight },
// each name passed through name() (to drop what the page does not show).
export function readFolded(file, name = (n) => n) {
	const stacks = [];
	for (const line of fs.readFileSync(file, 'latin1').split('\n')) {
		const m = /^(.*) ([0-9.]+)$/.exec(line);
		if (m)
			stacks.push({ frames: ['all', ...m[1].split(';').map(name)], w: Number(m[2]) });
	}
	return stacks;
}

// A flame graph's "Matched" (the SVG's definition): the share of the
// zoomed frame's weight in frames that match re, counting the zoomed frame
// and its descendants only. zoomPath is the zoomed frame's stack without
// "all" ([] when not zoomed).
export function expectedMatched(stacks, re, zoomPath) {
	let all = 0, hit = 0;
	for (const s of stacks) {
		if (zoomPath.some((n, i) => s.frames[i + 1] !== n))
			continue;
		all += s.w;
		if (s.frames.slice(zoomPath.length).some((n) => re.test(n)))
			hit += s.w;
	}
	return 'Matched: ' + (all > 0 ? (100 * hit) / all : 0).toFixed(1) + '%';
}

// ---- what every test script does around its checks ----

// A check that did not hold: its message ends the job's "not ok" line.
export class CheckFailed extends Error {}

export function check(cond, what) {
	if (!cond)
		throw new CheckFailed(what);
}

export function near(a, b, tol = 0.5) {
	return typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= tol;
}

// Waits until the page has drawn what its last event changed.
export async function settle(page) {
	await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
}

// The command line: `--NAME VALUE` for each NAME in valued goes to
// args[NAME], every other word to args.pos; any other word starting with
// "--" calls usage() when it is given (else it is a word of args.pos).
export function parseArgs(valued, usage) {
	const args = { pos: [] };
	for (let i = 2; i < process.argv.length; i++) {
		const a = process.argv[i];
		if (a.startsWith('--') && valued.includes(a.slice(2)))
			args[a.slice(2)] = process.argv[++i];
		else if (usage && a.startsWith('--'))
			usage();
		else
			args.pos.push(a);
	}
	return args;
}

// A full-page screenshot of page, DIR/PAGE-name.png (PAGE: the base name
// of file), when dir (--artifacts) is set.
export async function screenshot(page, dir, file, name) {
	if (!dir)
		return;
	fs.mkdirSync(dir, { recursive: true });
	await page.screenshot({ path: path.join(dir, `${path.basename(file)}-${name}.png`), fullPage: true });
}

// One job's line: runs checks(), then "ok - NAME" when they held and the
// page had no script errors or network requests (watchPage's errors),
// else "not ok - NAME: the first check that failed". Returns 0 or 1.
export async function verdict(name, errors, checks) {
	try {
		await checks();
		check(errors.length === 0, 'no script errors or network requests:\n#   ' + errors.join('\n#   '));
		console.log(`ok - ${name}`);
		return 0;
	} catch (e) {
		const why = e instanceof CheckFailed ? e.message : (e.stack || String(e));
		console.log(`not ok - ${name}: ${why.replace(/\n/g, '\n# ')}`);
		return 1;
	}
}

// A job on one new page of browser, watched by watchPage: verdict(name)
// on checks(page); the page is closed afterwards.
export async function pageJob(browser, name, checks) {
	const errors = [];
	const page = await browser.newPage();
	watchPage(page, errors);
	try {
		return await verdict(name, errors, () => checks(page));
	} finally {
		await page.close();
	}
}

// Runs runJob(browser, job) for each job in one browser; 1 when any
// failed, else 0.
export async function runJobs(jobs, runJob) {
	let failed = 0;
	await withBrowser(async (browser) => {
		for (const job of jobs)
			failed += await runJob(browser, job);
	});
	return failed ? 1 : 0;
}

// Exits with main()'s status; when it throws, says so in a "not ok" line
// and exits 1.
export function exitWith(main) {
	main().then((s) => process.exit(s), (e) => {
		console.log(`not ok - cannot run the browser: ${String(e.stack || e).replace(/\n/g, '\n# ')}`);
		process.exit(1);
	});
}
