/** A count with its noun, as a person would write it: `1 record`, `20,000 records`. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}
