import cluster from 'node:cluster';
import { boundServerHeapGrowth } from '../../heap-growth.ts';
import { type Command, serverConfig } from '../command.ts';

const serveOptions = {
  host: { type: 'string' },
  port: { type: 'string' },
} as const;

/** The commands that serve: the service itself, and the demo. */
export const SERVING_COMMANDS: Record<string, Command> = {
  serve: {
    usage: 'serve [--host 127.0.0.1] [--port 3000]',
    options: serveOptions,
    async run(context) {
      const config = serverConfig(context);
      boundServerHeapGrowth();
      // The server's modules load only for the commands that serve, keeping the others quick.
      if (config.workers > 1 && cluster.isPrimary) {
        const { runCluster } = await import('../../cluster.ts');
        const running = await runCluster(config, (line) => context.io.stderr(`${line}\n`));
        return {
          json: {
            url: running.url,
            workers: config.workers,
            metricsUrl: running.metricsUrl ?? null,
          },
          text: `Hadir listening on ${running.url} with ${config.workers} workers${running.metricsUrl ? `; metrics on ${running.metricsUrl}` : ''}`,
        };
      }
      const { startServer, stopOnSignals } = await import('../../main.ts');
      const server = await startServer(config);
      stopOnSignals(server);
      if (cluster.isWorker) return undefined;
      return {
        json: { url: server.url, metricsUrl: server.metricsUrl ?? null },
        text: `Hadir listening on ${server.url}${server.metricsUrl ? `; metrics on ${server.metricsUrl}` : ''}`,
      };
    },
  },
  demo: {
    usage: 'demo [--host 127.0.0.1] [--port 3000]',
    options: serveOptions,
    async run(context) {
      const { runDemo, describeDemo } = await import('../../demo/demo.ts');
      const demo = await runDemo(serverConfig(context));
      return { json: demo, text: describeDemo(demo) };
    },
  },
};
