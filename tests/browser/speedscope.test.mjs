// speedscope's own importer reads what tracker exports: each FILE
// (a .speedscope.json or .pb.gz that tracker flame wrote) is opened in
// speedscope's app from its npm package (node_modules/speedscope, the
// page its `speedscope FILE` command opens, in Debian's chromium), and
// what speedscope made of it is saved with its own export (Ctrl+S) to
// FILE.back.speedscope.json, which the calling test reads back with
// tracker. A file speedscope cannot import shows its error page and
// exports nothing: "not ok".
//
//   node speedscope.test.mjs [--artifacts DIR] FILE...
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, exitWith, pageJob, parseArgs, runJobs, screenshot } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const app = path.join(here, 'node_modules/speedscope/dist/release/index.html');
const args = parseArgs(['artifacts'], () => {
	console.log('usage: node speedscope.test.mjs [--artifacts DIR] FILE...');
	process.exit(2);
});

async function roundTrip(browser, file) {
	return pageJob(browser, `speedscope ${path.basename(file)}`, async (page) => {
		const abs = path.resolve(file);
		// what speedscope's command line does: a script that hands the
		// file to the app, named in the URL
		const loader = abs + '.load.js';
		fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(abs))}, ` +
			`${JSON.stringify(fs.readFileSync(abs).toString('base64'))})\n`);
		await page.goto('file://' + app + '#localProfilePath=' + encodeURIComponent(loader));
		await page.waitForFunction(() => document.title.includes(' - speedscope'), null, { timeout: 20000 });
		await screenshot(page, args.artifacts, file, 'speedscope');
		const saved = page.waitForEvent('download', { timeout: 20000 });
		await page.keyboard.press('Control+s');
		const download = await saved;
		const out = abs + '.back.speedscope.json';
		await download.saveAs(out);
		check(fs.statSync(out).size > 0, 'speedscope exported the profile');
	});
}

exitWith(() => runJobs(args.pos, roundTrip));
