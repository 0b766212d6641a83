import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Browser, type Frame, type Page, chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where browser tests save their screenshots. */
export const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');
// The machine has no internet: without these flags Chromium keeps dialling Google's services.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Debian Chromium, or a clear error saying how to install it. */
export function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Whether `frame` shows `text` in an iframe laid out on the page (not one being replaced). */
async function isShowing(frame: Frame, text: string): Promise<boolean> {
  const visible = await frame
    .getByText(text)
    .first()
    .isVisible()
    .catch(() => false);
  if (!visible) return false;
  const box = await (await frame.frameElement().catch(() => null))?.boundingBox();
  return (box?.height ?? 0) > 100;
}

/** The frame that shows `text`: the UI renders markdown (summary, details) in sandboxed iframes of its own. */
export async function frameShowing(page: Page, text: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) if (await isShowing(frame, text)) return frame;
    await page.waitForTimeout(250);
  }
  throw new Error(`no frame of ${page.url()} showed "${text}" within ${timeoutMs} ms`);
}
