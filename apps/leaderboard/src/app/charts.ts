// Observable Plot charts, made CSP-safe and accessible: Plot's own <style> element is removed
// before the chart is attached (the CSP allows no inline style; style.css carries its rules for
// the `plot` class), and each chart is a <figure> with a title, a text alternative (aria-label and
// <desc>) and a caption.
import * as Plot from '@observablehq/plot';
import { printable } from '@llm-nrm/core';
import { h } from './dom.js';

export { Plot };

export interface ChartText {
  /** Short title (also the SVG's accessible name). */
  title: string;
  /** What the chart shows, in words, for screen readers and as the caption. */
  description: string;
}

/** Render Plot options into an accessible figure. */
export function chart(options: Plot.PlotOptions, text: ChartText, id?: string): HTMLElement {
  const el = Plot.plot({ className: 'plot', ariaLabel: text.title, ariaDescription: text.description, ...options }) as Element;
  for (const st of Array.from(el.querySelectorAll('style'))) st.remove();
  if (el.tagName.toLowerCase() === 'style') el.remove();
  // Plot writes its labels, ticks and <title> tooltips as text nodes of its own (option texts and ids
  // among them): they get the rule dom.ts applies to every other text of the page.
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) n.nodeValue = printable(n.nodeValue ?? '', { keepNewlines: true });
  const svg = el.tagName.toLowerCase() === 'svg' ? el : el.querySelector('svg');
  if (svg) {
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', printable(`${text.title}. ${text.description}`));
  }
  return h(
    'figure',
    { class: 'chart', ...(id ? { id } : {}) },
    h('figcaption', null, h('strong', null, text.title), ' ', h('span', { class: 'muted' }, text.description)),
    el,
  );
}
