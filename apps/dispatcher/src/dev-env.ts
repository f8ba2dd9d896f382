/**
 * A development-and-test knob (beyond the contract's variables): a positive integer, or
 * undefined when unset. A bad value stops the process with a message naming the variable.
 */
export function positiveKnob(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`Invalid configuration: "${name}" must be a positive integer`);
  return value;
}
