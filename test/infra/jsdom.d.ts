/**
 * The part of jsdom's API that first-paint.test.ts uses: jsdom ships no types, and the
 * server-side program has no DOM library to borrow them from.
 */
declare module 'jsdom' {
  interface TestElement {
    readonly textContent: string | null;
    getAttribute(name: string): string | null;
    dispatchEvent(event: object): boolean;
  }
  interface TestDocument {
    querySelector(selectors: string): TestElement | null;
    querySelectorAll(selectors: string): ArrayLike<TestElement> & Iterable<TestElement>;
  }
  export class JSDOM {
    constructor(html: string, options?: { url?: string; runScripts?: 'dangerously' | 'outside-only'; beforeParse?: (window: TestWindow) => void });
    readonly window: TestWindow;
  }
  interface TestWindow {
    document: TestDocument;
    Event: new (type: string) => object;
    requestAnimationFrame: (callback: (time: number) => void) => number;
    setTimeout: (callback: () => void) => number;
    close(): void;
  }
}
