// DOM building without HTML strings: every text (item text and model ids are untrusted) goes in as
// a text node, attributes are set one by one, and event handlers are properties, never attributes.
// Text passes core's `printable` (as in the CLI): a bidi override in a model id must not reorder
// what the page shows (`org/phi4 \u202etxt.exe` shown as `...exe.txt`).
import { printable } from '@llm-nrm/core';

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child) append(parent, c);
    return;
  }
  parent.appendChild(
    typeof child === 'string' || typeof child === 'number' ? document.createTextNode(printable(String(child), { keepNewlines: true })) : child,
  );
}

const SHOWN_ATTRIBUTES = new Set(['title', 'aria-label', 'alt', 'placeholder']);

function setAttrs(el: Element, attrs: Attrs | undefined): void {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') {
      if (!k.startsWith('on')) throw new Error(`handler for ${k}`);
      el.addEventListener(k.slice(2).toLowerCase(), v);
      continue;
    }
    // No inline style or handler attributes: the CSP forbids the first, this module the second.
    if (k === 'style' || /^on/i.test(k)) throw new Error(`attribute ${k} is not allowed`);
    // Attributes shown as text are text too; values and URLs are data (an option's value names a benchmark).
    el.setAttribute(k, v === true ? '' : SHOWN_ATTRIBUTES.has(k) ? printable(String(v)) : String(v));
  }
}

/** An HTML element: h('a', { href: '#/' }, 'text', child...). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs ?? undefined);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element (presentation attributes only: no style attribute). */
export function s(tag: string, attrs?: Attrs | null, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag) as SVGElement;
  setAttrs(el, attrs ?? undefined);
  append(el, children);
  return el;
}

/** Replace a node's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A fixed-decimals number, '–' for null or NaN. */
export function fmt(v: number | null | undefined, d = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return v.toFixed(d).replace(/^-(?=0\.0*$)/, '');
}

export function pct(v: number | null | undefined, d = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${(100 * v).toFixed(d)}%`;
}

/** A "How to read this" disclosure. */
export function howTo(...paragraphs: Child[]): HTMLElement {
  return h('details', { class: 'howto' }, h('summary', null, 'How to read this'), ...paragraphs.map((p) => (typeof p === 'string' ? h('p', null, p) : p)));
}

/** Option label: A, B, ... Z, then 27, 28 ... */
export function optionLabel(k: number): string {
  return k < 26 ? String.fromCharCode(65 + k) : String(k + 1);
}

/** Trigger a download of text as a file (a blob URL; nothing leaves the page). */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
