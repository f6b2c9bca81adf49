// The site's Content-Security-Policy: scripts, workers, styles and data from the site's own origin
// only; nothing inline, no eval, no remote origin. The meta tag (written into index.html at build
// time) carries everything a meta tag may; the preview server's header adds what only a header can.

/** Policy of the `<meta http-equiv="Content-Security-Policy">` tag. */
export const CSP_META = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "style-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Policy of the HTTP header (the meta policy plus the header-only frame-ancestors). */
export const CSP_HEADER = `${CSP_META}; frame-ancestors 'none'`;
