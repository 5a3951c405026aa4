# model_history DIR KEY HOT [TRACKER-DB-URL]
# The known answer of function history: 12 builds (1..12) of KEY on main
# with 2% noise, whose alloc profile is main;model;{HOT,ocean,dynamics}
# and main;io, HOT's allocations doubling from build 8 on (1 MB -> 2 MB of
# about 6.5 MB); record files in DIR, profiles DIR/p<N>.folded.
model_history() {
	_noise="1.000 1.012 0.991 1.018 1.003 0.985 1.009 0.996 0.979 1.021 1.006 0.994"
	mkdir -p "$1" &&
	for _b in 1 2 3 4 5 6 7 8 9 10 11 12; do
		_m=$(echo $_noise | cut -d" " -f$_b)
		_m2=$(echo $_noise | cut -d" " -f$(( (_b + 5) % 12 + 1 )))
		_r=1000000
		[ $_b -ge 8 ] && _r=2000000
		mkrec "$1" $_b "$2" main $_b "$(echo "100 * $_m" | bc -l)" 1000000000 || return 1
		printf 'main;model;%s %.0f\nmain;model;ocean %.0f\nmain;model;dynamics %.0f\nmain;io %.0f\n' \
			"$3" "$(echo "$_r * $_m" | bc -l)" "$(echo "2000000 * $_m2" | bc -l)" \
			"$(echo "3000000 * $_m" | bc -l)" "$(echo "500000 * $_m2" | bc -l)" \
			>"$1/p$_b.folded" || return 1
	done
}

# model_import DB DIR: the records of DIR and each run's alloc profile.
model_import() {
	tracker push --db "$1" "$2" >/dev/null 2>&1 &&
	for _b in 1 2 3 4 5 6 7 8 9 10 11 12; do
		tracker import --db "$1" --run "00000000-0000-4000-8000-$(printf %012d $_b)" \
			--kind alloc --format folded "$2/p$_b.folded" 2>/dev/null || return 1
	done
}
