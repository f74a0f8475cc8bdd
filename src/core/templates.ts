// Room templates: the starter plan and context a new room can begin with. Each task may depend on
// earlier tasks of the same template by index; ids t1..tn are given in order at creation.
import { z } from 'zod'
import { parse } from '../shared/validate.js'

export interface TemplateTask {
  title: string
  notes?: string
  priority?: 'urgent' | 'high' | 'normal' | 'low'
  /** Indexes (0-based) of earlier tasks of this template. */
  after?: number[]
}

export interface TemplateContext {
  type: string
  key: string
  body: string
}

export interface Template {
  id: string
  title: string
  description: string
  tasks: TemplateTask[]
  context: TemplateContext[]
}

const WEB_APP_BRIEF = `# Product brief

## Problem
Describe who the users are and what they cannot do today.

## Goal
One sentence: what a user can do when this ships.

## Scope
- In: the screens and API endpoints of the first release.
- Out: what is explicitly left for later.

## Constraints
- Stack and hosting decisions already made.
- Deadlines, budgets, compliance requirements.

## Done means
- The acceptance checks below pass in CI.
- A user can complete the main flow end to end on staging.

## Acceptance checks
1. ...
`

const WEB_APP_CONVENTIONS = `# Working agreements

- Claim a task with update_task (status in_progress, assignee = you) before starting it.
- Record API contracts under context type "spec" before building against them.
- Post a "blocker" event when you are stuck; a "status" event when you finish a task.
- Take a lock (acquire_lock) before editing a shared file such as a schema or lockfile.
- Ask for a review (request_review) when a task is ready; the reviewer approves or rejects with a note.
`

const INCIDENT_ROLES = `# Incident roles

| Role | Who | Does |
|---|---|---|
| Incident commander | (assign) | Owns the incident, decides, keeps the timeline. |
| Communications | (assign) | Updates stakeholders and the status page every 30 minutes. |
| Operations | (assign) | Investigates and applies mitigations; announces every change before making it. |
| Scribe | (assign) | Records decisions and actions in the timeline context entry. |

Severity: SEV1 (customer-facing outage), SEV2 (degraded), SEV3 (internal only).
Escalate when: mitigation is not in place within 30 minutes, or data loss is suspected.
`

const INCIDENT_TIMELINE = `# Timeline

Times in UTC. One line per observation, decision or action.

- hh:mm — incident declared; severity: ?; commander: ?
`

export const TEMPLATES: readonly Template[] = [
  {
    id: 'blank',
    title: 'Blank room',
    description: 'An empty room: no tasks, no context.',
    tasks: [],
    context: [],
  },
  {
    id: 'web-app',
    title: 'Web application',
    description: 'Starter plan for building a web app with a product brief and working agreements.',
    tasks: [
      {
        title: 'Fill in the product brief',
        notes: 'Edit context brief/product: problem, goal, scope, acceptance checks.',
        priority: 'high',
      },
      {
        title: 'Write the API spec',
        notes: 'Record endpoints, request and response bodies in context spec/api.',
        priority: 'high',
        after: [0],
      },
      {
        title: 'Design the data model',
        notes: 'Tables or collections, indexes, migrations. Record in context spec/data-model.',
        after: [0],
      },
      { title: 'Set up the repository, CI and linting', priority: 'normal' },
      { title: 'Build the backend endpoints', after: [1, 2, 3] },
      { title: 'Build the frontend screens', after: [1, 3] },
      { title: 'End-to-end tests of the main flow', after: [4, 5] },
      { title: 'Deploy to staging and verify the acceptance checks', after: [6], priority: 'high' },
    ],
    context: [
      { type: 'brief', key: 'product', body: WEB_APP_BRIEF },
      { type: 'decision', key: 'working-agreements', body: WEB_APP_CONVENTIONS },
    ],
  },
  {
    id: 'incident',
    title: 'Incident response',
    description: 'Roles and a response checklist for handling a production incident.',
    tasks: [
      { title: 'Assign the incident commander and roles', notes: 'Fill in runbook/roles.', priority: 'urgent' },
      { title: 'Assess impact and set severity', priority: 'urgent', after: [0] },
      { title: 'Post the first stakeholder update', priority: 'high', after: [1] },
      { title: 'Identify the triggering change or cause', priority: 'urgent', after: [1] },
      { title: 'Mitigate: roll back, fail over or disable the feature', priority: 'urgent', after: [3] },
      { title: 'Verify recovery with metrics and user reports', priority: 'high', after: [4] },
      { title: 'Post the all-clear update', after: [5] },
      {
        title: 'Write the post-incident review',
        notes: 'Timeline, root cause, what went well, action items with owners.',
        priority: 'normal',
        after: [6],
      },
    ],
    context: [
      { type: 'runbook', key: 'roles', body: INCIDENT_ROLES },
      { type: 'runbook', key: 'timeline', body: INCIDENT_TIMELINE },
    ],
  },
]

/** list_templates' input: optionally one template, by id (an unknown id lists none). */
export const templateSchemas = { list: z.object({ template: z.string().max(64).optional() }) }

/** The templates as list_templates shows them: what each starts with, not the content itself. */
export function listTemplates(input: unknown = {}) {
  const v = parse(templateSchemas.list, input)
  return TEMPLATES.filter((t) => v.template === undefined || t.id === v.template).map((t) => ({
    id: t.id,
    title: t.title,
    description: t.description,
    tasks: t.tasks.length,
    context_entries: t.context.length,
  }))
}

/**
 * A template's id, one of TEMPLATES: what the room model, the API's create body and the
 * dashboard's create form accept, with one message naming the choices.
 */
export const templateId = z.enum(TEMPLATES.map((t) => t.id) as [string, ...string[]], {
  error: `must be one of ${TEMPLATES.map((t) => t.id).join(', ')}`,
})

export function findTemplate(id: string): Template | undefined {
  return TEMPLATES.find((t) => t.id === id)
}
