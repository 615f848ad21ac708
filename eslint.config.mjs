// ESLint (make test): its recommended rules on the site's JavaScript. The explorers are ES
// modules in the browser (explorers.js too), a11y.js a plain script (mkdocs.yml
// extra_javascript), beside Material's document$; docs_build's .mjs run in Node.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["docs/assets/javascripts/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser, document$: "readonly" } },
  },
  {
    files: ["docs/assets/javascripts/a11y.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    files: ["docs_build/**/*.mjs"],
    languageOptions: { globals: globals.node },
  },
  { rules: { "no-unused-vars": ["error", { args: "after-used", caughtErrors: "all" }] } },
];
