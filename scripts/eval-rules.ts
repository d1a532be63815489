/**
 * `npm run eval:rules -- [<use case | rules file>] [--tenant <t>] [--json]`: how the built-in
 * judge reads each rule, for the author of a use case. For every rule it prints the reading as a
 * canonical sentence ("The response has at least 300 words."), or that the rule was not understood,
 * why, and the closest family the judge reads with an example wording (domain/evaluation/meaning/
 * explain.ts). The argument is a use case's name (in USE_CASES_DIR, or the repository's
 * use-cases/; a tenant's own with --tenant), a use case file (`.yaml`), or a rules file: JSON (an
 * array of rules, or `{"rules": [...]}`) or JSON Lines (one rule per line); a rule is an object
 * with a `description` and, optionally, an `id`. Without an argument: the default use case.
 * Exits 1 when the argument cannot be read; rules not understood are reported, not errors.
 */
import { Command } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import { explainRule, type RuleExplanation } from '../domain/evaluation/meaning/explain';
import { parseUseCase, UseCaseStore, useCasesFolder } from '../domain/evaluation/use-cases';
import { terminalJson, terminalText } from '../domain/text/terminal-text';

interface NamedRule {
  id: string;
  description: string;
}

/** The rules of a JSON or JSON Lines file: objects with a `description` (and an `id`, else their position). */
function rulesOfJson(file: string, text: string): NamedRule[] {
  const values: unknown[] = file.endsWith('.jsonl')
    ? text
        .split('\n')
        .filter((line) => line.trim())
        .map((line, i) => {
          try {
            return JSON.parse(line) as unknown;
          } catch {
            throw new Error(`${file}:${i + 1}: not valid JSON`);
          }
        })
    : (() => {
        const parsed = JSON.parse(text) as unknown;
        return Array.isArray(parsed) ? parsed : ((parsed as { rules?: unknown[] })?.rules ?? []);
      })();
  return values.map((v, i) => {
    const rule = v as { id?: unknown; description?: unknown };
    if (typeof rule?.description !== 'string') throw new Error(`${file}: rule ${i + 1} has no "description" string`);
    return { id: typeof rule.id === 'string' ? rule.id : `rule ${i + 1}`, description: rule.description };
  });
}

/** The rules the argument names, and what to call them. */
function rulesOf(target: string, tenant?: string): { label: string; rules: NamedRule[] } {
  if (fs.existsSync(target) && fs.statSync(target).isFile()) {
    const text = fs.readFileSync(target, 'utf8');
    if (/\.ya?ml$/i.test(target)) {
      const useCase = parseUseCase({ name: path.basename(target).replace(/\.ya?ml$/i, ''), file: target, text });
      return { label: `use case file ${target}`, rules: useCase.rules };
    }
    if (/\.jsonl?$/i.test(target)) return { label: `rules file ${target}`, rules: rulesOfJson(target, text) };
    throw new Error(`${target}: expected a .yaml use case, or a .json or .jsonl rules file`);
  }
  const dir = useCasesFolder(process.env.USE_CASES_DIR);
  const useCase = new UseCaseStore(dir).get(target, tenant);
  if (!useCase) throw new Error(`"${target}" is neither a file nor a use case in ${dir}`);
  return { label: `use case "${target}"${tenant ? ` of tenant ${tenant}` : ''}`, rules: useCase.rules };
}

function printText(label: string, explained: { rule: NamedRule; explanation: RuleExplanation }[]): void {
  const understood = explained.filter((e) => e.explanation.understood).length;
  console.log(`${terminalText(label)}: ${explained.length} rules, ${understood} understood by the built-in judge`);
  for (const { rule, explanation: e } of explained) {
    console.log(`\n${e.understood ? '✔' : '✘'} ${terminalText(rule.id)}: ${terminalText(rule.description)}`);
    if (e.understood) {
      console.log(`    read as: ${e.reading}`);
      continue;
    }
    console.log(`    not understood: ${terminalText(e.reason)}`);
    if (e.closest) console.log(`    closest: ${e.closest.family}, for example: ${e.closest.example}`);
    console.log('    a model judge grades it when one is configured; the built-in judge answers not_applicable');
  }
}

new Command('eval:rules')
  .description('How the built-in judge reads each rule of a use case or a rules file.')
  .argument('[target]', 'a use case name, a use case .yaml file, or a .json/.jsonl rules file', 'default')
  .option('--tenant <tenant>', "a tenant's own use case of that name")
  .option('--json', 'one JSON object per rule instead of text')
  .action((target: string, o: { tenant?: string; json?: boolean }) => {
    const { label, rules } = rulesOf(target, o.tenant);
    const explained = rules.map((rule) => ({ rule, explanation: explainRule(rule.description) }));
    if (o.json) for (const e of explained) console.log(terminalJson({ id: e.rule.id, ...e.explanation }));
    else printText(label, explained);
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`eval:rules: ${terminalText(err.message)}`);
    process.exit(1);
  });
