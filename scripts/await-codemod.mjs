// Adds `await` where code uses what the store and services now answer with a promise, makes the
// enclosing function async (and its declared return type a Promise), round after round until
// nothing changes. `node scripts/await-codemod.mjs [src|test|bench ...]` (default: all three).
// Review every edit: callbacks made async (Array.map, event listeners), assert.throws on what now
// rejects, constructors and getters need a hand.
import ts from '/work/main/node_modules/typescript/lib/typescript.js';
import fs from 'node:fs';
const dirs = process.argv.slice(2).length ? process.argv.slice(2) : ['src', 'test', 'bench'];
const only = (f) => dirs.some((d) => f.includes(`/${d}/`)) && !f.includes('node_modules');
const isPromise = (t) => t && (t.isUnion() ? t.types.some(isPromise) : ['Promise', 'PromiseLike'].includes(t.getSymbol()?.name));
for (let round = 0; round < 8; round++) {
  const cfg = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(cfg.fileNames, cfg.options);
  const checker = program.getTypeChecker();
  const edits = new Map(); // file -> Map(pos -> {kind})
  const add = (sf, kind, pos, end, bare = false) => {
    if (!edits.has(sf.fileName)) edits.set(sf.fileName, []);
    edits.get(sf.fileName).push({ kind, pos, end, bare });
  };
  const fnOf = (n) => { for (let p = n.parent; p; p = p.parent) if (ts.isFunctionLike(p)) return p; return null; };
  const awaitExpr = (sf, e) => {
    if (ts.isAwaitExpression(e.parent)) return;
    const p = e.parent;
    const bare = ts.isExpressionStatement(p) || ts.isReturnStatement(p) || (ts.isVariableDeclaration(p) && p.initializer === e)
      || (ts.isCallExpression(p) && p.arguments.includes(e)) || ts.isPropertyAssignment(p) || (ts.isBinaryExpression(p) && p.right === e && p.operatorToken.kind === ts.SyntaxKind.EqualsToken);
    add(sf, 'await', e.getStart(sf), e.getEnd(), bare);
    const fn = fnOf(e);
    if (fn && !(ts.getCombinedModifierFlags(fn) & ts.ModifierFlags.Async)) {
      const mods = ts.canHaveModifiers(fn) ? ts.getModifiers(fn) ?? [] : [];
      const at = mods.length ? mods[mods.length - 1].getEnd() + 1 : fn.getStart(sf);
      add(sf, 'async', at, at);
      if (fn.type && !/^Promise</.test(fn.type.getText(sf))) add(sf, 'promise-type', fn.type.getStart(sf), fn.type.getEnd());
    }
  };
  let count = 0;
  for (const sf of program.getSourceFiles()) {
    if (!only(sf.fileName)) continue;
    for (const d of program.getSemanticDiagnostics(sf)) {
      let n = findNode(sf, d.start);
      // Climb to the expression whose value is a promise.
      let target = null;
      const candidates = [];
      for (let p = n; p && !ts.isStatement(p); p = p.parent) {
        if ((ts.isPropertyAccessExpression(p) || ts.isElementAccessExpression(p)) && p.expression !== n) candidates.push(p.expression);
        if (ts.isVariableDeclaration(p) && p.initializer) candidates.push(p.initializer);
        if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) candidates.push(p.right);
        if (ts.isPropertyAssignment(p)) candidates.push(p.initializer);
        if (ts.isCallExpression(p)) candidates.push(...p.arguments);
        if (ts.isForOfStatement(p.parent) && p.parent.expression === p) candidates.push(p);
      }
      if (ts.isForOfStatement(n.parent ?? n)) candidates.push(n.parent.expression);
      for (let i = 0; i < candidates.length; i++) if (ts.isNonNullExpression(candidates[i]) || ts.isParenthesizedExpression(candidates[i])) candidates.push(candidates[i].expression);
      for (const p of candidates) {
        if (!ts.isAwaitExpression(p.parent) && isPromise(checker.getTypeAtLocation(p)) && (ts.isCallExpression(p) || ts.isIdentifier(p) || ts.isPropertyAccessExpression(p))) { target = p; break; }
      }
      for (let p = n; !target && p && !ts.isStatement(p); p = p.parent) {
        if (ts.isExpression(p) && !ts.isAwaitExpression(p.parent) && isPromise(checker.getTypeAtLocation(p)) && (ts.isCallExpression(p) || ts.isIdentifier(p) || ts.isPropertyAccessExpression(p))) { target = p; break; }
      }
      // A promise returned where the declared type is the value: the function answers a promise now.
      if (!target && [2322, 2739, 2740, 2741].includes(d.code)) {
        let p = n;
        while (p && !ts.isReturnStatement(p) && !ts.isFunctionLike(p)) p = p.parent;
        const fn = p && ts.isReturnStatement(p) ? fnOf(p) : (p && ts.isArrowFunction(p) && p.body === n ? p : null);
        if (fn && fn.type && !/^Promise</.test(fn.type.getText(sf)) && !(ts.getCombinedModifierFlags(fn) & ts.ModifierFlags.Async) && !ts.isConstructorDeclaration(fn) && !ts.isGetAccessor(fn)) {
          const mods = ts.canHaveModifiers(fn) ? ts.getModifiers(fn) ?? [] : [];
          const at = mods.length ? mods[mods.length - 1].getEnd() + 1 : fn.getStart(sf);
          add(sf, 'async', at, at);
          add(sf, 'promise-type', fn.type.getStart(sf), fn.type.getEnd());
          count++;
        }
        continue;
      }
      if (!target) continue;
      if (ts.isIdentifier(target)) {
        const decl = checker.getSymbolAtLocation(target)?.valueDeclaration;
        if (decl && ts.isVariableDeclaration(decl) && decl.initializer && decl.getSourceFile() === sf) { awaitExpr(sf, decl.initializer); count++; }
        continue;
      }
      awaitExpr(sf, target); count++;
    }
    // Calls into src whose promise nobody awaits.
    const visit = (n) => {
      if (ts.isExpressionStatement(n) && ts.isCallExpression(n.expression) && isPromise(checker.getTypeAtLocation(n.expression))) {
        const sig = checker.getResolvedSignature(n.expression);
        const file = sig?.declaration?.getSourceFile().fileName ?? '';
        if (file.includes('/src/') && !ts.isVoidExpression(n.expression) && !/\.(then|catch|finally)$/.test(n.expression.expression.getText(sf))) { awaitExpr(sf, n.expression); count++; }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  if (count === 0) break;
  for (const [file, list] of edits) {
    let text = fs.readFileSync(file, 'utf8');
    const seen = new Set();
    const ops = [];
    for (const e of list) {
      const k = `${e.kind}:${e.pos}`;
      if (seen.has(k)) continue;
      seen.add(k);
      if (e.kind === 'await' && e.bare) ops.push({ at: e.pos, text: 'await ' });
      else if (e.kind === 'await') ops.push({ at: e.end, text: ')' }, { at: e.pos, text: '(await ' });
      else if (e.kind === 'async') ops.push({ at: e.pos, text: 'async ' });
      else ops.push({ at: e.end, text: '>' }, { at: e.pos, text: 'Promise<' });
    }
    ops.sort((a, b) => b.at - a.at);
    for (const o of ops) text = text.slice(0, o.at) + o.text + text.slice(o.at);
    fs.writeFileSync(file, text);
  }
  console.log('round', round, 'edits', count);
}
function findNode(sf, pos) {
  let found = sf;
  const visit = (n) => { if (n.getStart(sf) <= pos && pos < n.getEnd()) { found = n; ts.forEachChild(n, visit); } };
  ts.forEachChild(sf, visit);
  return found;
}
