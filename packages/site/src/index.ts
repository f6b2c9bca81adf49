// @llm-nrm/site: build and preview the static leaderboard site (Node side; the browser app is apps/leaderboard).
export { CSP_HEADER, CSP_META } from './csp.js';
export { SITE_DATA_VERSION, benchmarkOf, responsesBank, responsesBankBuilder, siteData, type SiteFiles, type SiteInput } from './siteData.js';
export { appAssetsDir, buildSite, type BuildSiteOptions, type BuildSiteResult } from './buildSite.js';
export { serveSite, type ServedSite } from './serveSite.js';
export type {
  BenchmarkShard,
  Curve,
  ItemEntry,
  ItemRow,
  ItemShard,
  LeaderboardRow,
  LeaderboardShard,
  Manifest,
  ModelShard,
  SeparatingItem,
  TinyScoringShard,
} from './types.js';
