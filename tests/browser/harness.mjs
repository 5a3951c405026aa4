// What the browser tests share: launching Debian's chromium through
// playwright-core (nothing is downloaded) and watching a page for script
// errors and network requests.
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
