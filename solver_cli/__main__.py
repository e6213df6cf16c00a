from solver_cli.cli import main

main()
