#!/usr/bin/env node
import('../dist/main.js').then((m) => m.runFromProcess());
