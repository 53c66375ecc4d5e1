/**
 * The environment for an `npm` (or starter) child process: this process's, without the
 * `npm_*` variables an outer `npm test` sets. An inner npm reads those as its own config
 * (`npm_config_local_prefix` would make it install into the repository) and a starter would
 * see the repository's package.json in `npm_package_*`.
 *
 * @example
 * ```ts
 * spawn('npm', ['start'], { cwd: dir, env: childEnv({ PORT: '0' }) });
 * ```
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && name !== 'INIT_CWD') env[name] = value;
  }
  return { ...env, ...extra };
}
