/**
 * A small builder of Grafana dashboards (Grafana's JSON model, schemaVersion 39) from a compact
 * description: rows of panels, each with its PromQL queries. It lays the panels out on Grafana's
 * 24-column grid, row by row, and gives every panel and query the same datasource, the dashboard's
 * `DS_PROMETHEUS` variable, so an operator picks their Prometheus when importing it. Only data is
 * produced here; no Grafana code is used.
 */

/** The dashboard variable every panel's datasource names. */
export const DATASOURCE_VARIABLE = 'DS_PROMETHEUS';
const datasource = { type: 'prometheus', uid: `\${${DATASOURCE_VARIABLE}}` };

export interface QuerySpec {
  expr: string;
  /** Grafana's legend template, e.g. `{{operation}}`. */
  legend: string;
}

export interface PanelSpec {
  title: string;
  description: string;
  queries: QuerySpec[];
  /** Grafana unit id: `reqps`, `s`, `percentunit`, `bytes`, `short`, … */
  unit: string;
  /** `stat`: the last value, large, coloured by `upDown` or thresholds; default `timeseries`. */
  type?: 'timeseries' | 'stat';
  /** Columns of 24 (default 8) and grid rows (default 8). */
  width?: number;
  height?: number;
  /** Values are 0 (down, red) or 1 (up, green). */
  upDown?: boolean;
  /** Draw the series stacked. */
  stacked?: boolean;
}

export interface RowSpec {
  title: string;
  panels: PanelSpec[];
}

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  tags: string[];
  rows: RowSpec[];
}

const UP_DOWN = {
  mappings: [
    {
      type: 'value',
      options: { '0': { text: 'down', color: 'red', index: 0 }, '1': { text: 'up', color: 'green', index: 1 } },
    },
  ],
  thresholds: {
    mode: 'absolute',
    steps: [
      { color: 'red', value: null },
      { color: 'green', value: 1 },
    ],
  },
};

function fieldConfig(p: PanelSpec) {
  const custom =
    p.type === 'stat'
      ? undefined
      : {
          drawStyle: 'line',
          lineWidth: 1,
          fillOpacity: p.stacked ? 30 : 10,
          showPoints: 'never',
          spanNulls: false,
          stacking: { mode: p.stacked ? 'normal' : 'none', group: 'A' },
        };
  return {
    defaults: {
      unit: p.unit,
      ...(custom ? { custom } : {}),
      ...(p.upDown
        ? UP_DOWN
        : {
            thresholds: {
              mode: 'absolute',
              steps: [{ color: p.type === 'stat' ? 'blue' : 'green', value: null }],
            },
          }),
      ...(p.type === 'stat' ? {} : { color: { mode: 'palette-classic' } }),
    },
    overrides: [],
  };
}

function options(p: PanelSpec) {
  if (p.type === 'stat')
    return {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      colorMode: 'background',
      graphMode: 'area',
      justifyMode: 'auto',
      orientation: 'auto',
      textMode: 'value_and_name',
    };
  return {
    legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
    tooltip: { mode: 'multi', sort: 'desc' },
  };
}

/** Places panels left to right on the 24-column grid, wrapping to a new line when one does not fit. */
class Layout {
  private x = 0;
  private y = 0;
  private lineHeight = 0;

  row(): { h: number; w: number; x: number; y: number } {
    this.newLine();
    const pos = { h: 1, w: 24, x: 0, y: this.y };
    this.y += 1;
    return pos;
  }

  panel(w: number, h: number): { h: number; w: number; x: number; y: number } {
    if (this.x + w > 24) this.newLine();
    const pos = { h, w, x: this.x, y: this.y };
    this.x += w;
    this.lineHeight = Math.max(this.lineHeight, h);
    return pos;
  }

  private newLine(): void {
    this.y += this.lineHeight;
    this.x = 0;
    this.lineHeight = 0;
  }
}

/** The dashboard's JSON model. */
export function buildDashboard(spec: DashboardSpec): Record<string, unknown> {
  const layout = new Layout();
  let id = 0;
  const panels: Record<string, unknown>[] = [];
  for (const row of spec.rows) {
    panels.push({ id: ++id, type: 'row', title: row.title, collapsed: false, gridPos: layout.row(), panels: [] });
    for (const p of row.panels)
      panels.push({
        id: ++id,
        type: p.type ?? 'timeseries',
        title: p.title,
        description: p.description,
        datasource,
        gridPos: layout.panel(p.width ?? 8, p.height ?? 8),
        fieldConfig: fieldConfig(p),
        options: options(p),
        targets: p.queries.map((q, i) => ({
          refId: String.fromCharCode(65 + i),
          datasource,
          editorMode: 'code',
          expr: q.expr,
          legendFormat: q.legend,
          range: true,
        })),
      });
  }
  return {
    __requires: [
      { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.4.0' },
      { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
      { type: 'panel', id: 'stat', name: 'Stat', version: '' },
      { type: 'panel', id: 'timeseries', name: 'Time series', version: '' },
    ],
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    description: spec.description,
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: [],
    panels,
    refresh: '30s',
    schemaVersion: 39,
    tags: spec.tags,
    templating: {
      list: [
        {
          name: DATASOURCE_VARIABLE,
          label: 'Prometheus',
          type: 'datasource',
          query: 'prometheus',
          current: {},
          hide: 0,
          includeAll: false,
          multi: false,
          options: [],
          refresh: 1,
          regex: '',
          skipUrlSync: false,
        },
      ],
    },
    time: { from: 'now-1h', to: 'now' },
    timepicker: {},
    timezone: '',
    title: spec.title,
    uid: spec.uid,
    version: 1,
    weekStart: '',
  };
}

/** The dashboard as the file holds it: two-space JSON and a final newline. */
export const dashboardJson = (spec: DashboardSpec) => `${JSON.stringify(buildDashboard(spec), null, 2)}\n`;
