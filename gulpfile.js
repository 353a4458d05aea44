// Copies what tsc does not emit (icons, codex .node.json files) into dist, keeping relative paths,
// and empties dist before a build so a module removed from the source cannot linger in the package.
const fs = require('fs');
const { src, dest, parallel } = require('gulp');

function clean(done) {
	fs.rmSync('dist', { recursive: true, force: true });
	done();
}

function icons() {
	return src('icons/*.svg').pipe(dest('dist/icons'));
}

function nodeAssets() {
	return src(['nodes/**/*.{png,svg,json}'], { base: '.' }).pipe(dest('dist'));
}

exports.clean = clean;
exports['build:assets'] = parallel(icons, nodeAssets);
