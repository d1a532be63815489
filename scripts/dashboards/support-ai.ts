/**
 * The on-call dashboard of Support-AI (ops/dashboards/support-ai.json, docs/operations.md,
 * "Dashboards"): its rows and panels, with their PromQL, over the metrics every part shares
 * (docs/operations.md, "Metrics"): the API's and the worker's `supportai_*`, the Temporal SDK's
 * `temporal_*` (jobs `api-sdk` and `worker-sdk`), the Temporal server's task queue backlog and
 * Prometheus's own `up`.
 *
 * A panel that counts failures which a healthy service does not have (5xx, Weaviate and embedding
 * errors, failed Temporal tasks) draws 0 for each operation, call, lane or task queue that had
 * traffic (`or on(…) 0 * <traffic>`), so a quiet line reads "no errors" rather than "no data".
 */
import type { DashboardSpec, PanelSpec } from './grafana';

const INTERVAL = '$__rate_interval';
const rate = (selector: string) => `rate(${selector}[${INTERVAL}])`;
const sumRate = (by: string, selector: string) => `sum by (${by}) (${rate(selector)})`;
const quantile = (q: number, by: string, histogram: string, filter = '') =>
  `histogram_quantile(${q}, sum by (${by}, le) (${rate(`${histogram}_bucket${filter}`)}))`;
/** The rate of `errors` by `by`, or 0 for each `by` whose `calls` had traffic but no error. */
const errorsOrZero = (o: { by: string; errors: string; calls: string; callsBy?: string }) =>
  `${sumRate(o.by, o.errors)} or on(${o.callsBy ?? o.by}) 0 * ${sumRate(o.callsBy ?? o.by, o.calls)}`;

/** Requests of tenants: everything but probes and the OpenAPI document. */
const CLIENT = 'operation!~"healthz|readyz|openapi"';
/** The operations of the operations table. */
const OPERATIONS = 'operation!~"healthz|readyz|openapi|unmatched"';
const SDK = 'job=~"api-sdk|worker-sdk"';
/** The server's task queues of the project's namespace (the system's own left out; names as the server writes them). */
const SERVER_QUEUES = 'service_name="matching",taskqueue!~"temporal_sys_.*|default_worker_tq"';
const REQUESTS = 'supportai_http_requests_total';
const DURATION = 'supportai_http_request_duration_seconds';

const latency = (q: number): PanelSpec => ({
  title: `Latency p${Math.round(q * 100)} by operation`,
  description: `The ${Math.round(q * 100)}th percentile of the time from request to answer, per operation, of answers other than 4xx (refusals and bad requests are fast and would hide slow work). From supportai_http_request_duration_seconds.`,
  unit: 's',
  queries: [
    { expr: quantile(q, 'operation', DURATION, `{${OPERATIONS},status_class!="4xx"}`), legend: '{{operation}}' },
  ],
});

export const supportAiDashboard: DashboardSpec = {
  uid: 'support-ai',
  title: 'Support-AI',
  description:
    'On-call view of the Support-AI API, its worker and their dependencies (docs/operations.md, "Dashboards").',
  tags: ['support-ai'],
  rows: [
    {
      title: 'Overview',
      panels: [
        {
          title: 'Scrape targets up, by job',
          description:
            'How many processes of each scrape job Prometheus reaches: api, api-sdk, worker, worker-sdk, temporal, weaviate, prometheus, alertmanager. 0 means every process of that job is down or unreachable.',
          type: 'stat',
          unit: 'none',
          width: 12,
          height: 5,
          queries: [
            {
              expr: 'sum by (job) (up{job=~"api|api-sdk|worker|worker-sdk|temporal|weaviate|prometheus|alertmanager"})',
              legend: '{{job}}',
            },
          ],
        },
        {
          title: 'Dependencies, as the API sees them',
          description:
            "The API's circuit breakers and probes (supportai_dependency_up): temporal, weaviate, embeddings (every embedding server together) and chat_model (only with CHAT_BASE_URL). The lowest value over the API instances.",
          type: 'stat',
          unit: 'none',
          width: 12,
          height: 5,
          upDown: true,
          queries: [{ expr: 'min by (dependency) (supportai_dependency_up)', legend: '{{dependency}}' }],
        },
      ],
    },
    {
      title: 'Traffic',
      panels: [
        {
          title: 'Requests/s by operation',
          description:
            'Requests answered per second, per operation of the operations table (unmatched: a path no operation has). Health probes and the OpenAPI document left out.',
          unit: 'reqps',
          width: 12,
          stacked: true,
          queries: [{ expr: sumRate('operation', `${REQUESTS}{${CLIENT}}`), legend: '{{operation}}' }],
        },
        {
          title: 'Requests/s by status class',
          description: 'Requests answered per second, per status class (2xx, 3xx, 4xx, 5xx), every operation.',
          unit: 'reqps',
          width: 12,
          stacked: true,
          queries: [{ expr: sumRate('status_class', `${REQUESTS}{${CLIENT}}`), legend: '{{status_class}}' }],
        },
      ],
    },
    {
      title: 'Errors',
      panels: [
        {
          title: '5xx ratio by operation',
          description:
            'Share of the answers that were 5xx, per operation. Shows 0 (not "no data") for each operation that had traffic but no 5xx.',
          unit: 'percentunit',
          queries: [
            {
              expr: `(${errorsOrZero({ by: 'operation', errors: `${REQUESTS}{${OPERATIONS},status_class="5xx"}`, calls: `${REQUESTS}{${OPERATIONS}}` })}) / ${sumRate('operation', `${REQUESTS}{${OPERATIONS}}`)}`,
              legend: '{{operation}}',
            },
          ],
        },
        {
          title: '4xx/s by operation',
          description:
            'Answers of 4xx per second, per operation: bad requests, refused keys, 404s (unmatched: unknown paths), 408 deadlines, 429 refusals (their reasons are under Saturation).',
          unit: 'reqps',
          queries: [{ expr: sumRate('operation', `${REQUESTS}{status_class="4xx"}`), legend: '{{operation}}' }],
        },
        {
          title: 'Slow requests against the latency SLOs',
          description:
            "Share of searches (searchCases, searchArticles) slower than 0.5 s and of asks slower than 10 s: the SLOs of the alert rules' burn-rate alerts (ops/prometheus/alerts.yml).",
          unit: 'percentunit',
          queries: [
            {
              expr: `1 - sum(${rate(`${DURATION}_bucket{operation=~"searchCases|searchArticles",le="0.5"}`)}) / sum(${rate(`${DURATION}_count{operation=~"searchCases|searchArticles"}`)})`,
              legend: 'search over 0.5 s',
            },
            {
              expr: `1 - sum(${rate(`${DURATION}_bucket{operation="ask",le="10"}`)}) / sum(${rate(`${DURATION}_count{operation="ask"}`)})`,
              legend: 'ask over 10 s',
            },
          ],
        },
      ],
    },
    { title: 'Latency', panels: [latency(0.5), latency(0.95), latency(0.99)] },
    {
      title: 'Saturation',
      panels: [
        {
          title: 'Requests in flight by operation',
          description: 'Requests being answered now, per operation, summed over the API instances.',
          unit: 'short',
          width: 6,
          queries: [
            { expr: `sum by (operation) (supportai_http_requests_in_flight{${CLIENT}})`, legend: '{{operation}}' },
          ],
        },
        {
          title: 'Admission queue depth',
          description:
            "Requests (search, ask) and CPU tasks (cpu) waiting for their tenant's turn, summed over the processes.",
          unit: 'short',
          width: 6,
          queries: [{ expr: 'sum by (queue) (supportai_admission_queue_depth)', legend: '{{queue}}' }],
        },
        {
          title: 'Refusals/s by reason',
          description:
            'Requests refused instead of served, per reason: 429 rate_limit, queue_full, token_budget, auth_failures; 408 deadline; 503 dependency_unavailable with the dependency it named.',
          unit: 'reqps',
          width: 6,
          queries: [
            {
              expr: sumRate('reason, dependency', 'supportai_admission_rejections_total'),
              legend: '{{reason}} {{dependency}}',
            },
          ],
        },
        {
          title: 'Most throttled tenants',
          description:
            "429s per second of the 10 most throttled tenants (a tenant's rate limit, queue or token budget). Each process names its first METRICS_TENANT_LABELS tenants, the others are `other`.",
          unit: 'reqps',
          width: 6,
          queries: [
            { expr: `topk(10, ${sumRate('tenant', 'supportai_tenant_throttled_total')})`, legend: '{{tenant}}' },
          ],
        },
      ],
    },
    {
      title: 'Dependencies',
      panels: [
        {
          title: 'Dependency probe latency p95',
          description: "The 95th percentile of the API's probe of each dependency (answered or failed).",
          unit: 's',
          queries: [
            {
              expr: quantile(0.95, 'dependency', 'supportai_dependency_probe_duration_seconds'),
              legend: '{{dependency}}',
            },
          ],
        },
        {
          title: 'Weaviate call latency p95',
          description:
            'The 95th percentile of Weaviate calls, by what they are for: search (searches and asks), ingest (uploads), keys (API key look-ups).',
          unit: 's',
          queries: [{ expr: quantile(0.95, 'call', 'supportai_weaviate_call_duration_seconds'), legend: '{{call}}' }],
        },
        {
          title: 'Weaviate errors/s',
          description:
            'Failed Weaviate calls per second, by call and kind (unavailable, timeout, rejected, other). Shows 0 for each call that had traffic but no error.',
          unit: 'reqps',
          queries: [
            {
              expr: errorsOrZero({
                by: 'call, kind',
                callsBy: 'call',
                errors: 'supportai_weaviate_errors_total',
                calls: 'supportai_weaviate_call_duration_seconds_count',
              }),
              legend: '{{call}} {{kind}}',
            },
          ],
        },
        {
          title: 'Embedding queue length by lane',
          description:
            'Embedding calls waiting in the processes for their server: query (short queries), bulk (passages of uploads), english (the tag model encoder).',
          unit: 'short',
          queries: [{ expr: 'sum by (lane) (supportai_embedding_queue_length)', legend: '{{lane}}' }],
        },
        {
          title: 'Embedding call latency p95 by lane',
          description: 'The 95th percentile of one call to an embedding server, per lane.',
          unit: 's',
          queries: [{ expr: quantile(0.95, 'lane', 'supportai_embedding_call_duration_seconds'), legend: '{{lane}}' }],
        },
        {
          title: 'Embedding errors/s by lane',
          description:
            'Failed embedding calls per second, per lane (calls their caller aborted are not counted). Shows 0 for each lane that had calls but no error.',
          unit: 'reqps',
          queries: [
            {
              expr: errorsOrZero({
                by: 'lane',
                errors: 'supportai_embedding_errors_total',
                calls: 'supportai_embedding_call_duration_seconds_count',
              }),
              legend: '{{lane}}',
            },
          ],
        },
      ],
    },
    {
      title: 'Temporal task queues',
      panels: [
        {
          title: 'Task queues polled (API view)',
          description:
            'Whether a worker polled each task queue (workflows, ask, ingestion, grading) within the last 25 s, as the API checks it every 5 s. The ask queue is also polled by every API.',
          unit: 'none',
          upDown: true,
          queries: [{ expr: 'max by (task_queue) (supportai_task_queue_pollers)', legend: '{{task_queue}}' }],
        },
        {
          title: 'SDK pollers by task queue',
          description:
            "Pollers of the Temporal SDK's workers (worker and the APIs' ask workers), per task queue and poller type.",
          unit: 'short',
          queries: [
            {
              expr: `sum by (task_queue, poller_type) (temporal_num_pollers{${SDK}})`,
              legend: '{{task_queue}} {{poller_type}}',
            },
          ],
        },
        {
          title: 'Task slots used and available',
          description: "Slots of the SDK's workers per task queue and worker type: used, and still available.",
          unit: 'short',
          queries: [
            {
              expr: `sum by (task_queue, worker_type) (temporal_worker_task_slots_used{${SDK}})`,
              legend: 'used {{task_queue}} {{worker_type}}',
            },
            {
              expr: `sum by (task_queue, worker_type) (temporal_worker_task_slots_available{${SDK}})`,
              legend: 'available {{task_queue}} {{worker_type}}',
            },
          ],
        },
        {
          title: 'Activity schedule-to-start p95',
          description:
            'How long activities waited in their task queue for a worker slot (95th percentile), per task queue: the ingestion queue growing here is an ingestion backlog.',
          unit: 's',
          queries: [
            {
              expr: quantile(0.95, 'task_queue', 'temporal_activity_schedule_to_start_latency_seconds', `{${SDK}}`),
              legend: '{{task_queue}}',
            },
          ],
        },
        {
          title: 'Workflow task schedule-to-start p95',
          description: 'How long workflow tasks waited for a worker (95th percentile), per task queue.',
          unit: 's',
          queries: [
            {
              expr: quantile(
                0.95,
                'task_queue',
                'temporal_workflow_task_schedule_to_start_latency_seconds',
                `{${SDK}}`,
              ),
              legend: '{{task_queue}}',
            },
          ],
        },
        {
          title: 'Failed activities and workflow tasks/s',
          description:
            'Activity executions and workflow tasks that failed, per second and task queue (an activity retried counts each attempt). Shows 0 for each task queue that ran activities or workflow tasks without a failure.',
          unit: 'short',
          queries: [
            {
              expr: errorsOrZero({
                by: 'task_queue',
                errors: `temporal_activity_execution_failed_total{${SDK}}`,
                calls: `temporal_activity_execution_latency_seconds_count{${SDK}}`,
              }),
              legend: 'activities {{task_queue}}',
            },
            {
              expr: errorsOrZero({
                by: 'task_queue',
                errors: `temporal_workflow_task_execution_failed_total{${SDK}}`,
                calls: `temporal_workflow_task_execution_latency_seconds_count{${SDK}}`,
              }),
              legend: 'workflow tasks {{task_queue}}',
            },
          ],
        },
        {
          title: 'Server backlog by task queue',
          description:
            "Tasks waiting in each task queue, as the Temporal server's matching service estimates it (approximate_backlog_count, emitted about once a minute; task queue names with - written as _).",
          unit: 'short',
          width: 12,
          queries: [
            {
              expr: `sum by (taskqueue, task_type) (approximate_backlog_count{${SERVER_QUEUES}})`,
              legend: '{{taskqueue}} {{task_type}}',
            },
          ],
        },
        {
          title: 'Server backlog age by task queue',
          description:
            "Age of the oldest task waiting in each task queue (approximate_backlog_age_seconds); the ingestion alert fires when the ingestion queue's stays over 5 minutes.",
          unit: 's',
          width: 12,
          queries: [
            {
              expr: `max by (taskqueue, task_type) (approximate_backlog_age_seconds{${SERVER_QUEUES}})`,
              legend: '{{taskqueue}} {{task_type}}',
            },
          ],
        },
      ],
    },
    {
      title: 'Ingestion and batch evaluation',
      panels: [
        {
          title: 'Uploaded items/s by kind and outcome',
          description:
            'Items of uploads per second: accepted by the API, then stored or failed by the worker; kind is articles, cases or incidents. Accepted staying above stored means a backlog.',
          unit: 'short',
          width: 12,
          queries: [{ expr: sumRate('kind, outcome', 'supportai_uploads_total'), legend: '{{kind}} {{outcome}}' }],
        },
        {
          title: 'Batch evaluation records/s',
          description: "Records of batch evaluations graded or failed per second (the worker's grading).",
          unit: 'short',
          width: 12,
          queries: [{ expr: sumRate('outcome', 'supportai_batch_eval_records_total'), legend: '{{outcome}}' }],
        },
        {
          title: 'Batch evaluation chunks being graded',
          description:
            'Grading activities of batch evaluations running now, summed over the workers. Above 0 while records/s stays at 0 is a stalled batch.',
          unit: 'short',
          width: 12,
          queries: [{ expr: 'sum(supportai_batch_eval_active)', legend: 'active' }],
        },
        {
          title: 'Tag trainings in the last hour',
          description:
            'Tag model trainings that ran (finished) or failed within the last hour, summed over the workers.',
          unit: 'short',
          width: 12,
          queries: [{ expr: 'sum by (outcome) (increase(supportai_tag_trainings_total[1h]))', legend: '{{outcome}}' }],
        },
      ],
    },
    {
      title: 'Model usage',
      panels: [
        {
          title: 'Model calls/s by outcome',
          description:
            'Calls to the configured chat model per second, by engine, model and outcome (ok, error, timeout).',
          unit: 'reqps',
          queries: [
            {
              expr: sumRate('engine, model, outcome', 'supportai_model_calls_total'),
              legend: '{{model}} {{outcome}}',
            },
          ],
        },
        {
          title: 'Model tokens/s',
          description: "Tokens of the chat model's calls per second, by model and kind (prompt, completion).",
          unit: 'short',
          stacked: true,
          queries: [{ expr: sumRate('model, kind', 'supportai_model_tokens_total'), legend: '{{model}} {{kind}}' }],
        },
        {
          title: 'Fallbacks to the built-in engine/s',
          description:
            'Requests the built-in engine answered because the configured model failed or gave an unusable reply (CHAT_FALLBACK=local), per operation.',
          unit: 'reqps',
          queries: [{ expr: sumRate('operation', 'supportai_model_fallbacks_total'), legend: '{{operation}}' }],
        },
      ],
    },
    {
      title: 'Process health',
      panels: [
        {
          title: 'Event-loop lag p99',
          description:
            "The 99th percentile of each API's and worker's event-loop lag: work holding the loop delays every request of that process.",
          unit: 's',
          queries: [
            {
              expr: 'max by (job, instance) (supportai_nodejs_eventloop_lag_p99_seconds)',
              legend: '{{job}} {{instance}}',
            },
          ],
        },
        {
          title: 'Resident memory',
          description: 'Resident set size of each API and worker process.',
          unit: 'bytes',
          queries: [
            {
              expr: 'max by (job, instance) (supportai_process_resident_memory_bytes)',
              legend: '{{job}} {{instance}}',
            },
          ],
        },
        {
          title: 'CPU',
          description: 'CPU time of each API and worker process per second (1 = one core).',
          unit: 'short',
          queries: [
            { expr: sumRate('job, instance', 'supportai_process_cpu_seconds_total'), legend: '{{job}} {{instance}}' },
          ],
        },
      ],
    },
  ],
};
