import assert from 'node:assert/strict';
import type { TestApp } from './app.js';

const API = '/api/v1';

/** Polls a job until it is terminal. */
export async function waitForJob(app: TestApp, ws: string, jobId: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/jobs/${jobId}` });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    if (['completed', 'failed', 'cancelled'].includes(response.body.data.status)) return response.body.data;
    if (Date.now() > deadline) assert.fail(`job ${jobId} still ${response.body.data.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
