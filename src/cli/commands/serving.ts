import cluster from 'node:cluster';
import { boundHeapGrowth } from '../../heap-growth.ts';
import { type Command, serverConfig } from '../command.ts';

const serveOptions = {
  host: { type: 'string' },
  port: { type: 'string' },
} as const;

/** The commands that serve: the service itself, and the demo. */
export const SERVING_COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'Serves the API, the portal and the reference until SIGTERM or SIGINT.',
    example: 'serve --port 3000',
    usage: 'serve [--host 127.0.0.1] [--port 3000]',
    options: serveOptions,
    async run(context) {
      const config = serverConfig(context);
      boundHeapGrowth();
      // The server's modules load only for the commands that serve, keeping the others quick.
      if (config.workers > 1 && cluster.isPrimary) {
        const { runCluster } = await import('../../serving/cluster.ts');
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
      const { startServer, stopOnSignals } = await import('../../serving/main.ts');
      const server = await startServer(config);
      stopOnSignals(server);
      if (cluster.isWorker) return undefined;
      return {
        json: {
          url: server.url,
          metricsUrl: server.metricsUrl ?? null,
          ingestUrl: server.ingestUrl ?? null,
        },
        text: `Hadir listening on ${server.url}${server.metricsUrl ? `; metrics on ${server.metricsUrl}` : ''}${server.ingestUrl ? `; ingest on ${server.ingestUrl}` : ''}`,
      };
    },
  },
  demo: {
    summary: 'Recreates ./data/demo.sqlite with demo data, issues a demo key, and serves it.',
    example: 'demo --port 3000',
    usage: 'demo [--host 127.0.0.1] [--port 3000]',
    options: serveOptions,
    async run(context) {
      const { prepareDemo, describeDemo } = await import('../../demo/demo.ts');
      const { startServer, stopOnSignals } = await import('../../serving/main.ts');
      const config = serverConfig(context);
      // A person watches the demo: readable lines unless JSON is asked for.
      const logFormat = context.io.env.LOG_FORMAT === undefined ? 'text' : config.logFormat;
      const prepared = await prepareDemo({ ...config, logFormat });
      const server = await startServer(prepared.config);
      stopOnSignals(server);
      const demo = {
        url: server.url,
        ...prepared.session,
        ...(server.metricsUrl ? { metricsUrl: server.metricsUrl } : {}),
      };
      return { json: demo, text: describeDemo(demo) };
    },
  },
};
