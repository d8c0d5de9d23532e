#!/usr/bin/env node
// The installed command: the compiled program (npm run build writes dist/).
import '../dist/main.js';
