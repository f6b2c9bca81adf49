import './style.css';
import { printable } from '@llm-nrm/core';
import { h, replace } from './dom.js';
import { manifest } from './data.js';
import { leaderboardPage } from './pages/leaderboard.js';
import { modelPage } from './pages/model.js';
import { itemPage } from './pages/item.js';
import { benchmarkPage } from './pages/benchmark.js';
import { scorePage } from './pages/score.js';

type Page = (main: HTMLElement, args: string[]) => Promise<void>;

const routes: Record<string, { page: Page; nav: string }> = {
  '': { page: leaderboardPage, nav: 'leaderboard' },
  model: { page: modelPage, nav: 'leaderboard' },
  item: { page: itemPage, nav: 'benchmark' },
  benchmark: { page: benchmarkPage, nav: 'benchmark' },
  score: { page: scorePage, nav: 'score' },
};

let generation = 0;

async function route(): Promise<void> {
  const gen = ++generation;
  const main = document.getElementById('main')!;
  const parts = location.hash
    .replace(/^#\/?/, '')
    .split('/')
    .map((p) => decodeURIComponent(p));
  const r = routes[parts[0] ?? ''] ?? routes['']!;
  for (const a of Array.from(document.querySelectorAll('nav a'))) {
    if (a.getAttribute('data-nav') === r.nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const view = h('div', { class: 'view' });
  try {
    const m = await manifest();
    document.getElementById('site-title')!.textContent = printable(m.title);
    await r.page(view, parts.slice(1));
    if (gen !== generation) return;
    replace(main, view);
    document.body.setAttribute('data-ready', location.hash || '#/');
    // For bench/scale.mjs: when the page was drawn and usable.
    performance.mark('llm-nrm-ready');
  } catch (e) {
    if (gen !== generation) return;
    console.warn(e);
    replace(main, h('div', { class: 'error-box', role: 'alert' }, `Could not show this page: ${(e as Error).message}`));
    document.body.setAttribute('data-ready', 'error');
  }
  const h1 = main.querySelector('h1');
  if (h1) document.title = `${h1.textContent} · LLM-NRM`;
}

window.addEventListener('hashchange', () => {
  document.body.removeAttribute('data-ready');
  void route().then(() => document.getElementById('main')?.focus({ preventScroll: false }));
});
void route();
