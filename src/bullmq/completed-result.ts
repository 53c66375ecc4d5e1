import type { Queue } from 'bullmq';
import type { JobResult } from 'webhook-cms-receiver';
import { bullClient } from './client.js';
import { runScript, type Script } from './script.js';

/** How far back the event stream is searched: a few events per job, so the last few hundred jobs. */
const SEARCH_EVENTS = 2000;

/** The `returnvalue` of the newest `completed` event of a job, searched from the stream's end. */
const FIND_COMPLETED: Script = {
  name: 'wcrFindCompleted',
  keys: 1,
  lua: `
local entries = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', tonumber(ARGV[2]))
for _, entry in ipairs(entries) do
  local fields = entry[2]
  local event, job, value
  for i = 1, #fields, 2 do
    if fields[i] == 'event' then event = fields[i + 1]
    elseif fields[i] == 'jobId' then job = fields[i + 1]
    elseif fields[i] == 'returnvalue' then value = fields[i + 1] end
  end
  if job == ARGV[1] and event == 'completed' then return value or '' end
end
return false`,
};

/**
 * The result of a job BullMQ removed as it completed (`removeOnComplete`), from the queue's
 * event stream; undefined when it is not there (trimmed, or the job never completed).
 */
export async function completedResult(queue: Queue, jobId: string): Promise<JobResult | undefined> {
  const found = await runScript(await bullClient(queue), FIND_COMPLETED, [queue.keys.events!, jobId, SEARCH_EVENTS]);
  if (typeof found !== 'string' || found === '') return undefined;
  try {
    const result = JSON.parse(found) as JobResult | null;
    return result?.ok === true ? result : undefined;
  } catch {
    return undefined;
  }
}
