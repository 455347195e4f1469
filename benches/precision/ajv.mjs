// Ajv (allErrors: true, formats not validated) on the precision cases (benches/precision.sh).
//
//   node ajv.mjs OUTDIR   (reads schemas.json and cases.jsonl, writes ajv.jsonl)
//
// Each schema under the class of its `$schema` (2020-12, 2019-09, draft-07 and draft-06);
// draft-04, which Ajv 8 does not ship, is marked `unsupported`. For each case: whether Ajv
// refuses it and the instancePath of its first error.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// (Resolved from the working folder: tests/proxy, where the SDK brought Ajv in.)
const require = createRequire(`${process.cwd()}/`);
const Ajv = require('ajv').default;
const Ajv2019 = require('ajv/dist/2019').default;
const Ajv2020 = require('ajv/dist/2020').default;
const draft6 = require('ajv/dist/refs/json-schema-draft-06.json');

const dir = process.argv[2];
const schemas = JSON.parse(readFileSync(`${dir}/schemas.json`, 'utf8'));
const options = { allErrors: true, strict: false, validateFormats: false };
const validators = new Map();

function compile(i) {
    if (validators.has(i)) return validators.get(i);
    const schema = schemas[i];
    const uri = (schema && schema.$schema) || 'https://json-schema.org/draft/2020-12/schema';
    let v = null;
    try {
        let ajv;
        if (uri.includes('2020-12')) ajv = new Ajv2020(options);
        else if (uri.includes('2019-09')) ajv = new Ajv2019(options);
        else if (uri.includes('draft-07')) ajv = new Ajv(options);
        else if (uri.includes('draft-06')) { ajv = new Ajv(options); ajv.addMetaSchema(draft6); }
        if (ajv) v = ajv.compile(schema);
    } catch (e) {
        v = null;
    }
    validators.set(i, v);
    return v;
}

const out = [];
for (const line of readFileSync(`${dir}/cases.jsonl`, 'utf8').split('\n')) {
    if (!line) continue;
    const c = JSON.parse(line);
    const v = compile(c.schema);
    if (!v) { out.push(JSON.stringify({ unsupported: true })); continue; }
    const ok = v(c.instance);
    out.push(JSON.stringify(ok ? { refused: false } : { refused: true, first: v.errors[0].instancePath }));
}
writeFileSync(`${dir}/ajv.jsonl`, out.join('\n') + '\n');
