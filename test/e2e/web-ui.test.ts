import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { onPath } from '../../infra/go-tools';
import { submitTask } from '../support/grpc';
import { cancelTask, pendingApprovalOf } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// The Temporal Web UI of the tests' dev server in headless Chromium, as an operator uses it: among
// the workflows waiting for a person, the task is found by its summary, and its page shows the
// summary, the details and what it waits for. The screenshots stay in .state/test/output/web-ui/.

const outputDir = path.resolve(__dirname, '../../.state/test/output/web-ui');
const ui = process.env.WEFT_TEST_TEMPORAL_UI!;
let stack: TestStack;
let browser: Browser;
beforeAll(async () => {
  mkdirSync(outputDir, { recursive: true });
  stack = await startTestStack();
  browser = await chromium.launch({ executablePath: onPath('chromium') ?? 'chromium', args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser.close();
  await stack.stop();
});

/** The page's text, the markdown the UI renders in frames included. */
async function pageText(page: Page): Promise<string> {
  const texts = await Promise.all(
    page.frames().map((frame) =>
      frame
        .locator('body')
        .innerText()
        .catch(() => ''),
    ),
  );
  return texts.join('\n');
}

/** Opens a workflow's User Metadata tab; its text once the summary has rendered. */
async function userMetadataOf(page: Page, href: string): Promise<string> {
  await page.goto(`${ui}${href}`);
  await page.getByRole('link', { name: 'User Metadata' }).or(page.getByText('User Metadata')).first().click();
  await page.getByText('Current Details').first().waitFor();
  // The markdown renders a moment after the tab.
  for (let i = 0; i < 20 && !(await pageText(page)).includes('task of '); i++) await page.waitForTimeout(250);
  return pageText(page);
}

it('finds a task awaiting approval by its summary among those waiting, and shows its summary, details and what it waits for', async () => {
  const query = `Web UI check ${Date.now()}`;
  const summary = `task of olga: ${query}`;
  const submitted = await submitTask(stack.orchestrator, { query, require_approval: true, metadata: { user_id: 'olga', session_id: '', task_id: '' } });
  const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });

  // Every workflow waiting for a person (other test files' tasks too), as docs/guides/debugging.md's query finds them.
  await page.goto(`${ui}/namespaces/default/workflows?query=${encodeURIComponent('WeftAwaitingApproval = true')}`);
  const rows = page.getByRole('link', { name: /^task-[\w-]+$/ });
  await rows.first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(outputDir, 'awaiting-approval-list.png'), fullPage: true });
  const hrefs = (await rows.evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''))).filter(Boolean);

  let found: string | undefined;
  for (const href of hrefs) {
    const text = await userMetadataOf(page, href);
    if (text.includes(summary)) {
      found = text;
      break;
    }
  }
  expect(found).toBeDefined();
  await page.screenshot({ path: path.join(outputDir, 'awaiting-approval-task.png'), fullPage: true });
  expect(page.url()).toContain(submitted.workflow_id);
  expect(found).toContain(`Query: ${query}`);
  expect(found).toContain('Mode: STANDARD; approval required');
  expect(found).toMatch(new RegExp(`awaiting approval ${pending.approval_id} until \\d{4}-`));
  expect(found).toContain('Why: the request requires approval');
  expect(found).toContain(`approval deadline of ${pending.approval_id}`);
  await page.close();
  await cancelTask(stack.orchestrator, submitted.task_id, 'seen in the Web UI');
});

itLeavesEveryTaskVerified(() => stack.everyTask());
