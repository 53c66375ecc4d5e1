// The user's side of the packaging gate: a fresh project that installs the packed tarball,
// then imports, requires and type-checks every entry the exports map lists.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

const TOKEN = 'pack-check-token';

/**
 * @param {{ root: string, pkg: any, entries: { key: string, specifier: string }[], tarball: string, dir: string,
 *   ok: (message: string) => void, fail: (message: string) => void }} options
 */
export function checkConsumer({ root, pkg, entries, tarball, dir, ok, fail }) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '0.0.0' }));
  const exec = (command, args) =>
    execFileSync(command, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const attempt = (label, command, args) => {
    try {
      const out = exec(command, args);
      ok(label);
      return out;
    } catch (error) {
      fail(`${label}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
      return undefined;
    }
  };

  // Offline, so CI needs no registry: the package has no dependencies, and optional peers stay out.
  attempt('npm install <tarball> --offline into a fresh project', 'npm', [
    'install',
    tarball,
    '--offline',
    '--no-save',
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    '--no-package-lock',
  ]);
  linkPeers(root, dir, ok);

  const specifiers = entries.map((entry) => entry.specifier);
  writeFileSync(join(dir, 'check.mjs'), runtimeCheck('esm', pkg.name, specifiers));
  writeFileSync(join(dir, 'check.cjs'), runtimeCheck('cjs', pkg.name, specifiers));
  const esm = attempt(
    `ESM import of ${specifiers.length} entries, verify a signed delivery through the core and the Fetch adapter`,
    'node',
    ['check.mjs'],
  );
  const cjs = attempt(`CJS require of ${specifiers.length} entries, same checks`, 'node', ['check.cjs']);
  if (esm && cjs && esm !== cjs) fail(`ESM and CJS builds export different names:\nESM ${esm}\nCJS ${cjs}`);

  writeFileSync(join(dir, 'consumer.mts'), consumerSource(pkg.name, entries));
  writeFileSync(join(dir, 'consumer.cts'), consumerSource(pkg.name, entries));
  writeFileSync(join(dir, 'consumer.ts'), consumerSource(pkg.name, entries));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const settings = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
    lib: ['es2022', 'dom', 'dom.iterable'],
    target: 'es2022',
  };
  for (const [name, compilerOptions, files] of [
    ['node16', { module: 'node16', moduleResolution: 'node16' }, ['consumer.mts', 'consumer.cts']],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }, ['consumer.ts']],
  ]) {
    writeFileSync(
      join(dir, `tsconfig.${name}.json`),
      JSON.stringify({ compilerOptions: { ...settings, ...compilerOptions }, files }),
    );
    attempt(`tsc: a consumer (${files.join(', ')}) type-checks under moduleResolution ${name}`, 'node', [
      tsc,
      '-p',
      `tsconfig.${name}.json`,
    ]);
  }
}

/** Peers and type-only imports of the built files, linked from the repository's node_modules as a user would install them. */
function linkPeers(root, dir, ok) {
  const builtins = new Set(builtinModules);
  const wanted = new Set(Object.keys(pkg(root).peerDependencies ?? {}));
  const distDir = join(dir, 'node_modules', pkg(root).name, 'dist');
  if (existsSync(distDir)) {
    for (const file of execFileSync('ls', [distDir], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
      const text = readFileSync(join(distDir, file), 'utf8');
      for (const [, name] of text.matchAll(/(?:from\s+|require\()["']((?:@[^/"']+\/)?[^./"'][^/"']*)/g))
        wanted.add(name);
    }
  }
  // A TypeScript user of an untyped peer (Koa, Express) installs its @types package; our
  // declarations may rely on it (the Koa entry augments Koa's DefaultState).
  for (const name of [...wanted]) wanted.add(`@types/${name.replace(/^@([^/]+)\//, '$1__')}`);
  const linked = [];
  for (const name of wanted) {
    if (name === pkg(root).name || name.startsWith('node:') || builtins.has(name)) continue;
    const from = join(root, 'node_modules', name);
    const to = join(dir, 'node_modules', name);
    if (!existsSync(from) || existsSync(to)) continue;
    mkdirSync(join(to, '..'), { recursive: true });
    symlinkSync(from, to, 'dir');
    linked.push(name);
  }
  ok(`peers and type-only imports linked from the repository: ${linked.join(', ') || 'none'}`);
}

const pkg = (root) => JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** A script that loads every entry, then runs one real delivery through the core and the Fetch adapter. */
function runtimeCheck(format, name, specifiers) {
  const load =
    format === 'esm' ? (spec) => `await import(${JSON.stringify(spec)})` : (spec) => `require(${JSON.stringify(spec)})`;
  const body = `
  const names = {};
  for (const [spec, mod] of [${specifiers.map((spec) => `[${JSON.stringify(spec)}, ${load(spec)}]`).join(', ')}]) {
    names[spec] = Object.keys(mod).filter((key) => key !== 'default' && key !== '__esModule').sort();
    if (names[spec].length === 0) throw new Error(spec + ' exports nothing');
  }
  const { createReceiver, WebhookError } = ${load(name)};
  const { signDelivery, articleSyncPayload } = ${load(`${name}/testing`)};
  const { webhookHandler } = ${load(`${name}/fetch`)};
  const receiver = createReceiver({ token: '${TOKEN}' });
  const event = await receiver.verify(signDelivery({ token: '${TOKEN}', payload: articleSyncPayload() }));
  if (event.type !== 'article.sync') throw new Error('verify gave ' + event.type);
  const refused = await receiver.verify({ headers: {}, body: '{}' }).catch((error) => error);
  if (!(refused instanceof WebhookError)) throw new Error('the error class differs between entries: ' + refused);
  const signed = signDelivery({ token: '${TOKEN}', payload: articleSyncPayload() });
  const response = await webhookHandler(receiver, {})(new Request('http://127.0.0.1/webhook', { method: 'POST', ...signed }));
  if (response.status !== 200) throw new Error('the Fetch adapter answered ' + response.status + ' ' + (await response.text()));
  process.stdout.write(JSON.stringify(names));`;
  return format === 'esm'
    ? body
    : `(async () => {${body}\n})().catch((error) => { console.error(error); process.exit(1); });`;
}

/** A typed consumer: real calls on the core, every entry imported, and errors expected where types must bite. */
function consumerSource(name, entries) {
  const others = entries.filter((entry) => entry.key !== '.');
  return `import { createReceiver, isWebhookError, type WebhookEvent } from '${name}';
${others.map((entry, i) => `import * as entry${i} from '${entry.specifier}';`).join('\n')}

export async function describeDelivery(headers: Record<string, string>, body: string): Promise<string> {
  const receiver = createReceiver({ token: ['current', 'previous'], toleranceSeconds: 300 });
  try {
    const event: WebhookEvent = await receiver.verify({ headers, body });
    return event.type === 'article.sync' ? event.article.slug : event.name;
  } catch (error) {
    return isWebhookError(error) ? error.code : 'unexpected';
  }
}

// @ts-expect-error a token is a string (or a list, or a source): proves the core's types resolved and are not any
createReceiver({ token: 42 });
${others.map((_entry, i) => `// @ts-expect-error proves ${_entry.specifier} resolved to real types\nentry${i}.notExported;`).join('\n')}
export const entries: object[] = [${others.map((_entry, i) => `entry${i}`).join(', ')}];
`;
}
