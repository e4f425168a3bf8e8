// Lists promises nobody awaits: expression statements, object-literal values, template parts,
// conditions, arguments. `node scripts/find-floating-promises.mjs [tsconfig.json]`; every line is a
// promise to await, return, or `void` on purpose (a chain ending in .catch, or .then with a
// rejection handler, counts as handled).
import ts from '/work/main/node_modules/typescript/lib/typescript.js';
const cfg = ts.getParsedCommandLineOfConfigFile(process.argv[2] ?? 'tsconfig.json', {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const program = ts.createProgram(cfg.fileNames, cfg.options);
const checker = program.getTypeChecker();
const isPromise = (t) => {
  if (t.isUnion()) return t.types.some(isPromise);
  const s = t.getSymbol();
  return s && (s.name === 'Promise' || s.name === 'PromiseLike');
};
for (const sf of program.getSourceFiles()) {
  if (sf.isDeclarationFile || sf.fileName.includes('node_modules')) continue;
  const visit = (n) => {
    let target = null;
    if (ts.isExpressionStatement(n)) target = n.expression;
    else if (ts.isPropertyAssignment(n)) target = n.initializer;
    else if (ts.isShorthandPropertyAssignment(n)) target = null;
    else if (ts.isTemplateSpan(n)) target = n.expression;
    else if (ts.isSpreadAssignment(n) || ts.isSpreadElement(n)) target = n.expression;
    else if (ts.isReturnStatement(n) && n.expression && ts.isArrayLiteralExpression(n.expression)) target = null;
    else if ((ts.isIfStatement(n) || ts.isWhileStatement(n) || ts.isConditionalExpression(n)) ) target = n.expression ?? n.condition;
    else if (ts.isPrefixUnaryExpression(n) && n.operator === ts.SyntaxKind.ExclamationToken) target = n.operand;
    else if (ts.isBinaryExpression(n) && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(n.operatorToken.kind)) target = n.left;
    if (ts.isCallExpression(n) && !/^(Promise\.|.*\.(then|catch|finally|push|set|resolve|reject)$|resolve$|reject$|whenAnswered$)/.test(n.expression.getText())) {
      for (const a of n.arguments) {
        if (!ts.isAwaitExpression(a) && !ts.isArrowFunction(a) && !ts.isFunctionExpression(a) && isPromise(checker.getTypeAtLocation(a))) {
          const { line, character } = sf.getLineAndCharacterOfPosition(a.getStart());
          console.log(`${sf.fileName.replace(process.cwd() + '/', '')}:${line + 1}:${character + 1}: ARG ${n.expression.getText().slice(0, 40)}(${a.getText().slice(0, 80).replace(/\n/g, ' ')}`);
        }
      }
    }
    const handled = (e) => ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression)
      && (e.expression.name.text === 'catch' || (e.expression.name.text === 'then' && e.arguments.length === 2));
    if (target && !handled(target) && !ts.isAwaitExpression(target) && !ts.isVoidExpression(target) && !(ts.isBinaryExpression(target) && target.operatorToken.kind === ts.SyntaxKind.EqualsToken)) {
      const t = checker.getTypeAtLocation(target);
      if (isPromise(t)) {
        const { line, character } = sf.getLineAndCharacterOfPosition(target.getStart());
        console.log(`${sf.fileName.replace(process.cwd() + '/', '')}:${line + 1}:${character + 1}: ${target.getText().slice(0, 100).replace(/\n/g, ' ')}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
