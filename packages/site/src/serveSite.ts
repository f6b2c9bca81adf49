import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { CSP_HEADER } from './csp.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

export interface ServedSite {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serve a built site on 127.0.0.1 (a preview, not a production server): static files only, the
 * site's Content-Security-Policy header on every response, nothing outside `dir`.
 */
export function serveSite(dir: string, options: { port?: number; host?: string } = {}): Promise<ServedSite> {
  const root = resolve(dir);
  const host = options.host ?? '127.0.0.1';
  const server = createServer(async (req, res) => {
    const headers = {
      'Content-Security-Policy': CSP_HEADER,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    };
    try {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) throw Object.assign(new Error('outside'), { status: 403 });
      let st = await stat(file).catch(() => null);
      if (st?.isDirectory()) {
        file = join(file, 'index.html');
        st = await stat(file).catch(() => null);
      }
      if (!st?.isFile()) {
        res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('not found\n');
        return;
      }
      res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': st.size });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).pipe(res);
    } catch (e) {
      const status = (e as { status?: number }).status ?? 400;
      res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`${status}\n`);
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      ok({ url: `http://${host}:${port}/`, port, server, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
