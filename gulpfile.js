// Copies what tsc does not emit (icons, codex .node.json files) into dist, keeping relative paths.
const { src, dest, parallel } = require('gulp');

function icons() {
	return src('icons/*.svg').pipe(dest('dist/icons'));
}

function nodeAssets() {
	return src(['nodes/**/*.{png,svg,json}'], { base: '.' }).pipe(dest('dist'));
}

exports['build:assets'] = parallel(icons, nodeAssets);
