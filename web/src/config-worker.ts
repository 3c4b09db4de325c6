/** Checks config.json off the page's main thread (./config.ts): one message in, one answer out. */
import { checkSiteConfig } from './config-check';

const scope = self as unknown as { onmessage: ((event: MessageEvent<unknown>) => void) | null; postMessage(message: unknown): void };

scope.onmessage = (event) => scope.postMessage(checkSiteConfig(event.data));
