import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, OperationNode } from 'kysely';
import { tracer } from './tracer.ts';

const OPERATIONS: Record<string, string> = {
  SelectQueryNode: 'SELECT',
  InsertQueryNode: 'INSERT',
  UpdateQueryNode: 'UPDATE',
  DeleteQueryNode: 'DELETE',
};

/** The first table a statement names, from its tree (never its SQL text or parameters). */
function tableOf(node: OperationNode): string | undefined {
  const record = node as unknown as Record<string, unknown>;
  const candidates = [
    (record.from as { froms?: unknown[] } | undefined)?.froms?.[0],
    record.into,
    record.table,
  ];
  for (const candidate of candidates) {
    let found = candidate as { kind?: string; node?: unknown; table?: unknown } | undefined;
    if (found?.kind === 'AliasNode') found = found.node as typeof found;
    const name = (found?.table as { identifier?: { name?: string } } | undefined)?.identifier?.name;
    if (typeof name === 'string') return name;
  }
  return undefined;
}

/** A statement's name for its span: `SELECT respondents`; a raw statement is `SQL`. */
export function statementName(compiled: CompiledQuery): {
  name: string;
  operation: string;
  table?: string;
} {
  const operation = OPERATIONS[compiled.query.kind] ?? 'SQL';
  const table = operation === 'SQL' ? undefined : tableOf(compiled.query);
  return {
    name: table ? `${operation} ${table}` : operation,
    operation,
    ...(table ? { table } : {}),
  };
}

/**
 * A dialect whose statements run in spans of their own, named by their kind and table, beneath
 * the span of what they serve: the store layer's one place where both engines' queries pass,
 * prepared ones included.
 */
export function tracedDialect(dialect: Dialect, engine: 'sqlite' | 'postgresql'): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => tracedDriver(dialect.createDriver(), engine),
  };
}

function tracedDriver(driver: Driver, engine: string): Driver {
  const traced = new WeakSet<DatabaseConnection>();
  const acquire = driver.acquireConnection.bind(driver);
  driver.acquireConnection = async () => {
    const connection = await acquire();
    if (!traced.has(connection)) {
      traced.add(connection);
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = <R>(compiled: CompiledQuery) => {
        // A statement is traced as part of what it serves (a request, a batch, a run, a delivery):
        // outside one (the workers' polling: twenty a second on SQLite) or under one that is not
        // sampled, it runs as it would untraced, without even a span that records nothing.
        const parent = trace.getActiveSpan();
        if (!parent?.isRecording()) return execute<R>(compiled);
        const statement = statementName(compiled);
        // Not made active: a statement has no span beneath it.
        const span = tracer().startSpan(statement.name, {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': engine,
            'db.operation.name': statement.operation,
            ...(statement.table ? { 'db.collection.name': statement.table } : {}),
          },
        });
        return execute<R>(compiled).then(
          (result) => {
            span.end();
            return result;
          },
          (error: unknown) => {
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
            span.end();
            throw error;
          },
        );
      };
    }
    return connection;
  };
  return driver;
}
