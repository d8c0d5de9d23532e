import { afterAll } from 'vitest';
import { killOwnedProcesses } from './owned-processes.ts';

// A setup file of every test project: what a test file started ends with it, passed or not.
afterAll(killOwnedProcesses);
