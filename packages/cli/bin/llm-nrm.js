#!/usr/bin/env node
// Committed entry point (present before the first build, so npm links it on install); the CLI
// itself is the compiled dist/bin.js (`npm run build`).
import '../dist/bin.js';
