/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by CRLF (a bare
 * LF is accepted too), a field in double quotes may hold commas, line breaks and
 * doubled quotes. The first record is the header.
 */
export class CsvError extends Error {}

export function parseCsvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark from a spreadsheet's export
  let line = 1;
  const endField = () => {
    record.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    records.push(record);
    record = [];
  };
  while (i < text.length) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (char === '"') {
        quoted = false;
        i += 1;
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n') throw new CsvError(`Line ${line}: a quoted field must end at a comma or the end of the line.`);
        continue;
      }
      if (char === '\n') line += 1;
      field += char;
      i += 1;
      continue;
    }
    if (char === '"') {
      if (field !== '') throw new CsvError(`Line ${line}: a quote may only open a field.`);
      quoted = true;
      i += 1;
    } else if (char === ',') {
      endField();
      i += 1;
    } else if (char === '\r' || char === '\n') {
      endRecord();
      i += char === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line += 1;
    } else {
      field += char;
      i += 1;
    }
  }
  if (quoted) throw new CsvError(`Line ${line}: a quoted field is not closed.`);
  if (field !== '' || record.length > 0) endRecord();
  // Blank lines (a trailing one above all) are not records.
  return records.filter((r) => !(r.length === 1 && r[0] === ''));
}

/** The rows as objects keyed by the header's column names. */
export function parseCsv(text: string): { columns: string[]; rows: Record<string, string>[] } {
  const [header, ...body] = parseCsvRecords(text);
  if (!header) throw new CsvError('The CSV is empty.');
  const columns = header.map((name) => name.trim());
  const duplicate = columns.find((name, i) => columns.indexOf(name) !== i);
  if (duplicate !== undefined) throw new CsvError(`The column "${duplicate}" appears twice.`);
  const rows = body.map((values, index) => {
    if (values.length !== columns.length) throw new CsvError(`Row ${index + 1} has ${values.length} fields; the header has ${columns.length}.`);
    return Object.fromEntries(columns.map((name, i) => [name, values[i]]));
  });
  return { columns, rows };
}
