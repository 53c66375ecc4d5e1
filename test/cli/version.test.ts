import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('webhook-cms-receiver --version', () => {
  it("prints package.json's version, as text or JSON", async () => {
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(JSON.parse((await runCli(['--version', '--json'])).stdout)).toEqual({ version });
    expect(JSON.parse((await runCli(['--json', '--version'])).stdout)).toEqual({ version });
  });
});
