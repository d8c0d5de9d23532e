#!/usr/bin/env node
import { main } from './cli.js';

// hadir-sync: the command line; its exit code says whether every campaign synced.
process.exitCode = await main(process.argv.slice(2));
