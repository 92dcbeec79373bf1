compare_cli.o: bench/compare/compare_cli.cpp \
 bench/compare/compare_cli.hpp bench/compare/compare_table.hpp \
 bench/compare/paired_times.hpp bench/compare/mann_whitney.hpp \
 records/pairing.hpp records/record.hpp bench/compare/measured_times.hpp \
 common/errors.hpp records/results_reader.hpp
bench/compare/compare_cli.hpp:
bench/compare/compare_table.hpp:
bench/compare/paired_times.hpp:
bench/compare/mann_whitney.hpp:
records/pairing.hpp:
records/record.hpp:
bench/compare/measured_times.hpp:
common/errors.hpp:
records/results_reader.hpp:
